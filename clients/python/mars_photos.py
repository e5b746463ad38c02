"""A client of the Mars rover photo query API (/api/v2) in the Python standard library only.

It sends the key in the X-API-Key header (never in the URL), reads the JSON answers, raises
MarsApiError with the problem document (RFC 9457) on an error, and has the same paging helper as
the TypeScript package (clients/typescript): walk_photos follows pagination.cursor.next page after
page, so each matching photo comes once, in the query's order, also when the index is rebuilt
between two pages.

    from mars_photos import MarsClient, walk_photos

    mars = MarsClient("https://mars-api.example", os.environ["MARS_API_KEY"])
    page = mars.get("/api/v2/photos", rovers="curiosity", sol=1000, per_page=5)
    for photo in walk_photos(mars, rovers="spirit", fields="sol"):
        print(photo["id"], photo["attributes"].get("sol"))

Run as a program it prints how many photos a query walks:
    MARS_API_KEY=mv_live_... python3 mars_photos.py https://mars-api.example rovers=spirit
"""

import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request

__all__ = ["MarsApiError", "MarsClient", "photo_pages", "walk_photos"]

MAX_PER_PAGE = 100


class MarsApiError(Exception):
    """An answer that was not a 2xx: its status and the problem document the API sent."""

    def __init__(self, status, problem):
        self.status = status
        self.problem = problem if isinstance(problem, dict) else {}
        detail = self.problem.get("detail")
        super().__init__(f"{status} {self.problem.get('title', 'error')}" + (f": {detail}" if detail else ""))

    @property
    def parameters(self):
        """The names of the bad parameters a 400 lists (errors[].parameter)."""
        return [e.get("parameter") for e in self.problem.get("errors", []) if isinstance(e, dict)]


class MarsClient:
    """GET requests to one service with one key."""

    def __init__(self, base_url, api_key, timeout=30.0):
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.timeout = timeout

    def get(self, path, **query):
        """The JSON answer of GET path?query (None values left out); MarsApiError otherwise."""
        params = {k: str(v).lower() if isinstance(v, bool) else str(v) for k, v in query.items() if v is not None}
        url = self.base_url + path + ("?" + urllib.parse.urlencode(params) if params else "")
        request = urllib.request.Request(url, headers={"X-API-Key": self.api_key, "Accept": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                return json.load(response)
        except urllib.error.HTTPError as e:
            body = e.read()
            try:
                problem = json.loads(body)
            except ValueError:
                problem = {"title": e.reason, "detail": body[:200].decode("utf-8", "replace")}
            raise MarsApiError(e.code, problem) from None


def photo_pages(client, **query):
    """Every page of a photo query, in order: the first, then each after the previous page's cursor.

    per_page defaults to the largest page (100); page and cursor are set here.
    """
    query.pop("page", None)
    query.pop("cursor", None)
    query.setdefault("per_page", MAX_PER_PAGE)
    cursor = None
    while True:
        page = client.get("/api/v2/photos", **query, **({"cursor": cursor} if cursor is not None else {}))
        yield page
        cursor = ((page.get("pagination") or {}).get("cursor") or {}).get("next")
        if cursor is None:
            return


def walk_photos(client, **query):
    """Every photo of a query, each once, in the query's order, fetched a page at a time as it is read."""
    for page in photo_pages(client, **query):
        yield from page["data"]


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print("Usage: MARS_API_KEY=... python3 mars_photos.py BASE_URL [name=value ...]", file=sys.stderr)
        return 2
    key = os.environ.get("MARS_API_KEY")
    if not key:
        print("MARS_API_KEY is not set", file=sys.stderr)
        return 2
    query = dict(arg.split("=", 1) for arg in argv[2:])
    try:
        ids = [photo["id"] for photo in walk_photos(MarsClient(argv[1], key), **query)]
    except MarsApiError as e:
        print(e, file=sys.stderr)
        return 1
    print(json.dumps({"photos": len(ids), "first": ids[:1], "last": ids[-1:]}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
