/**
 * The OpenSearch description (https://github.com/dewitt/opensearch, 1.1 draft 6): lets a browser
 * add Trawl as a search engine. Every page links it with <link rel="search">.
 */

export const OPENSEARCH_TYPE = 'application/opensearchdescription+xml';

/** `origin`: the scheme, host and port the browser used (the server may be reached under several names). */
export function openSearchDescription(rawOrigin: string): string {
  const origin = escapeXml(rawOrigin);
  return `<?xml version="1.0" encoding="UTF-8"?>
<OpenSearchDescription xmlns="http://a9.com/-/spec/opensearch/1.1/">
<ShortName>Trawl</ShortName>
<Description>Search the pages Trawl has crawled</Description>
<InputEncoding>UTF-8</InputEncoding>
<Image height="16" width="16" type="image/svg+xml">${origin}/static/favicon.svg</Image>
<Url type="text/html" method="get" template="${origin}/?q={searchTerms}"/>
<Url type="application/json" method="get" template="${origin}/api/search?q={searchTerms}"/>
<Url type="${OPENSEARCH_TYPE}" rel="self" template="${origin}/opensearch.xml"/>
</OpenSearchDescription>
`;
}

function escapeXml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
