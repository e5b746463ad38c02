/** `p`, or a rejection once `ms` have passed without it settling (`p` itself runs on). */
export function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout>
  const t = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`redis command timed out after ${ms} ms`)), ms)
  })
  return Promise.race([p, t]).finally(() => clearTimeout(timer))
}
