/** The bytes of a request's answer body and its content coding, noted where the body is built (for the access log and metrics). */
const byRequest = new WeakMap<Request, { bytes: number; coding?: string }>()

export function noteBodyBytes(request: Request, bytes: number, coding?: string): void {
  byRequest.set(request, { bytes, coding })
}

export function bodyBytesOf(request: Request): { bytes: number; coding?: string } | undefined {
  return byRequest.get(request)
}
