/** The path of an absolute request URL without building a URL object (hot path). */
export { pathOf } from '../../src/http/url-facts'
