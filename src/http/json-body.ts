/**
 * A response body that is already serialised JSON. Resource handlers return it (or a Response);
 * the content-type plugin turns it into a Response with the negotiated media type, so JSON
 * work happens once, in the handler or the response cache.
 */
export class JsonBody {
  constructor(
    readonly text: string,
    readonly status: number = 200,
    readonly headers?: Record<string, string>,
  ) {}
}
