/** The JSON API's description (OpenAPI 3.1), served at /api/openapi.json. */
const error = { $ref: '#/components/schemas/Error' };
const json = (schema: unknown) => ({ content: { 'application/json': { schema } } });
const errors = (...codes: number[]) => Object.fromEntries(codes.map((c) => [String(c), { description: ERROR_TEXT[c], ...json(error) }]));
const ERROR_TEXT: Record<number, string> = {
  400: 'Bad request (code: missing-query, bad-query, bad-parameter, bad-body, bad-target)',
  401: 'No valid admin token (code: unauthorized)',
  403: 'Admin actions are off: no server.adminToken (code: admin-disabled)',
  404: 'Not found (code: not-found, unknown-url)',
  413: 'Body over 64 KB (code: too-large)',
  429: 'Too many requests from this address (code: rate-limited); see Retry-After',
};
const admin = { security: [{ bearer: [] }] };
const target = (withAll: boolean) => ({
  type: 'object',
  description: `Exactly one of url, host${withAll ? ' or all' : ''}.`,
  properties: { url: { type: 'string', format: 'uri' }, host: { type: 'string', example: 'docs.example.org' }, ...(withAll ? { all: { const: true } } : {}) },
});

export function openApi(version: string): unknown {
  return {
    openapi: '3.1.0',
    info: { title: 'Trawl', version, description: 'Search over what Trawl has crawled, watch the crawl, and control it. Errors are JSON: {error, code}, with a stable code.' },
    paths: {
      '/api/search': {
        get: {
          summary: 'Search',
          parameters: [
            { name: 'q', in: 'query', required: true, schema: { type: 'string', maxLength: 500 }, description: 'Words (all must match), "phrases", -excluded, a OR b, site:host, lang:xx, type:html|text, topic:class' },
            { name: 'page', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 1000, default: 1 } },
            { name: 'size', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 10 } },
          ],
          responses: { 200: { description: 'Results', ...json({ $ref: '#/components/schemas/SearchResponse' }) }, ...errors(400, 429) },
        },
      },
      '/api/status': { get: { summary: 'The crawl and the index now', responses: { 200: { description: 'Status', ...json({ type: 'object' }) }, ...errors(429) } } },
      '/api/events': { get: { summary: 'Server-sent events: a "status" event each second ({summary, html}, the dashboard fragment)', responses: { 200: { description: 'text/event-stream' } } } },
      '/api/document': {
        get: {
          summary: 'What Trawl knows of a URL: why it is (not) in the index',
          parameters: [{ name: 'url', in: 'query', required: true, schema: { type: 'string', format: 'uri' } }],
          responses: { 200: { description: 'The URL record', ...json({ type: 'object' }) }, ...errors(400, 404, 429) },
        },
      },
      '/api/seeds': { post: { ...admin, summary: 'Add seeds', requestBody: { required: true, ...json({ type: 'object', required: ['urls'], properties: { urls: { type: 'array', items: { type: 'string', format: 'uri' }, maxItems: 1000 } } }) }, responses: { 200: { description: '{queued, rejected}' }, ...errors(400, 401, 403, 413, 429) } } },
      '/api/pause': { post: { ...admin, summary: 'Pause the crawl (requests in flight finish)', responses: { 200: { description: '{paused: true}' }, ...errors(401, 403, 429) } } },
      '/api/resume': { post: { ...admin, summary: 'Resume the crawl', responses: { 200: { description: '{paused: false}' }, ...errors(401, 403, 429) } } },
      '/api/recrawl': { post: { ...admin, summary: 'Queue a URL, a host or everything again', requestBody: { required: true, ...json(target(true)) }, responses: { 200: { description: '{queued}' }, ...errors(400, 401, 403, 413, 429) } } },
      '/api/documents': {
        delete: {
          ...admin,
          summary: 'Remove a URL or a host from the index (and keep the crawl from bringing it back)',
          parameters: [
            { name: 'url', in: 'query', schema: { type: 'string', format: 'uri' } },
            { name: 'host', in: 'query', schema: { type: 'string' } },
          ],
          responses: { 200: { description: '{removed}' }, ...errors(400, 401, 403, 429) },
        },
      },
      '/healthz': { get: { summary: 'Liveness', responses: { 200: { description: '{ok: true, documents}' } } } },
      '/metrics': { get: { summary: 'Prometheus metrics (text format 0.0.4)', responses: { 200: { description: 'text/plain' } } } },
      '/opensearch.xml': { get: { summary: 'OpenSearch description', responses: { 200: { description: 'application/opensearchdescription+xml' } } } },
    },
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'server.adminToken or TRAWL_ADMIN_TOKEN' } },
      schemas: {
        Error: { type: 'object', required: ['error', 'code'], properties: { error: { type: 'string' }, code: { type: 'string' } } },
        SearchResponse: {
          type: 'object',
          properties: {
            query: { type: 'string' },
            total: { type: 'integer' },
            totalIsLowerBound: { type: 'boolean' },
            tookMs: { type: 'number' },
            page: { type: 'integer' },
            size: { type: 'integer' },
            partial: { type: 'boolean', description: 'No page has every word: these have some' },
            suggestion: { type: 'string', description: 'Did you mean' },
            facets: { type: 'object', properties: { host: { type: 'array' }, lang: { type: 'array' }, type: { type: 'array' }, topic: { type: 'array', description: 'Classes of a focused crawl' } } },
            hits: { type: 'array', items: { type: 'object', properties: { url: { type: 'string' }, title: { type: 'string' }, snippet: { type: 'string', description: 'HTML: escaped text, terms in <mark>' }, score: { type: 'number' }, fetchedAt: { type: 'string', format: 'date-time' }, topics: { type: 'array', items: { type: 'string' }, description: 'Classes of a focused crawl, best first' } } } },
          },
        },
      },
    },
  };
}
