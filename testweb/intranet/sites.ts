/** The intranet's simple hosts: HTTP Basic, a bearer token, and the public host where nothing secret may arrive. */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { page, pathOf, same, sendHtml } from './common.ts';

export type Credentials = { readonly user: string; readonly password: string };

const robots = (res: ServerResponse, sitemap?: string) => {
  res.writeHead(200, { 'content-type': 'text/plain' });
  res.end(`User-agent: *\nAllow: /\n${sitemap ? `Sitemap: ${sitemap}\n` : ''}`);
};

const notFound = (res: ServerResponse) => sendHtml(res, 404, page('Not found', 'nothing'));

/** The user name and password of a `Basic` Authorization header (RFC 7617), or undefined. */
export function basicCredentials(header: string | undefined): Credentials | undefined {
  const m = /^basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
  if (!m) return undefined;
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? undefined : { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/**
 * HTTP Basic (realm "docs"). /robots.txt is public and names a sitemap on `otherUrl()`; /moved
 * (behind the login) redirects to `otherUrl()`: neither may take the credentials along.
 */
export function basicSite(creds: Credentials, otherUrl: () => string): RequestListener {
  return (req, res) => {
    const path = pathOf(req);
    if (path === '/robots.txt') return robots(res, `${otherUrl()}/sitemap.xml`);
    const given = basicCredentials(req.headers.authorization);
    if (!given || !same(given.user, creds.user) || !same(given.password, creds.password)) {
      return sendHtml(res, 401, page('Sign in', 'a locked door'), { 'www-authenticate': 'Basic realm="docs", charset="UTF-8"' });
    }
    switch (path) {
      case '/':
        return sendHtml(
          res,
          200,
          page('Docs home', 'basicword', [
            ['/a', 'Page A'],
            ['/b', 'Page B'],
            ['/moved', 'Moved away'],
          ]),
        );
      case '/a':
        return sendHtml(
          res,
          200,
          page('Docs A', 'basicworda', [
            ['/', 'Home'],
            ['/b', 'Page B'],
          ]),
        );
      case '/b':
        return sendHtml(
          res,
          200,
          page('Docs B', 'basicwordb', [
            ['/', 'Home'],
            ['/a', 'Page A'],
          ]),
        );
      case '/moved':
        res.writeHead(302, { location: `${otherUrl()}/` });
        return res.end();
      default:
        return notFound(res);
    }
  };
}

/** `Authorization: Bearer <token>` (RFC 6750), realm "api". */
export function bearerSite(token: string): RequestListener {
  return (req: IncomingMessage, res: ServerResponse) => {
    const path = pathOf(req);
    if (path === '/robots.txt') return robots(res);
    const m = /^bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
    if (!m || !same(m[1]!, token)) {
      const challenge = m ? 'Bearer realm="api", error="invalid_token"' : 'Bearer realm="api"';
      return sendHtml(res, 401, page('Token needed', 'a locked api'), { 'www-authenticate': challenge });
    }
    if (path === '/') return sendHtml(res, 200, page('API docs', 'bearerword', [['/a', 'Page A']]));
    if (path === '/a') return sendHtml(res, 200, page('API docs A', 'bearerworda', [['/', 'Home']]));
    return notFound(res);
  };
}

/** The public host: /, /listed (only the sitemap names it), /sitemap.xml, /robots.txt. */
export function otherSite(ownUrl: () => string): RequestListener {
  return (req, res) => {
    switch (pathOf(req)) {
      case '/robots.txt':
        return robots(res);
      case '/':
        return sendHtml(res, 200, page('Other home', 'otherword'));
      case '/listed':
        return sendHtml(res, 200, page('Listed', 'otherlistedword', [['/', 'Home']]));
      case '/sitemap.xml':
        res.writeHead(200, { 'content-type': 'application/xml' });
        return res.end(
          '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">' +
            `<url><loc>${ownUrl()}/listed</loc></url></urlset>\n`,
        );
      default:
        return notFound(res);
    }
  };
}
