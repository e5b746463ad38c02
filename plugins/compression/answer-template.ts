/**
 * Which cached template a request's answer was stamped from (set by src/http/cached-answer.ts),
 * so the compression step can splice that entry's compressed pieces instead of compressing the
 * whole body (./spliced-body.ts).
 */
export interface AnswerTemplate {
  readonly text: string
  readonly variants: Map<string, unknown>
}

const byRequest = new WeakMap<Request, AnswerTemplate>()

export function noteTemplate(request: Request, template: AnswerTemplate): void {
  byRequest.set(request, template)
}

export function templateOf(request: Request): AnswerTemplate | undefined {
  return byRequest.get(request)
}
