/**
 * The fake intranet: hosts behind HTTP Basic, Digest, a bearer token and a form login, a public
 * host where no credential may ever arrive, a forward proxy, and HTTPS hosts with a private CA and
 * a self-signed certificate — for the tests of crawling behind a login and through a company
 * network (issue 20). Each host is its own server on its own loopback address (127.0.0.2…8 where
 * the system routes them, as Linux does — cookies ignore ports, so hosts must differ by address;
 * else 127.0.0.1 on distinct ports, `distinctHosts` false); the TLS host is on 127.0.0.1. Every
 * request is logged with its Authorization and Cookie headers, so a test can tell where they went.
 *
 * Routes (all hosts: /robots.txt allows everything, without credentials; anything else 404):
 *   basic    HTTP Basic, realm "docs": 401 + `WWW-Authenticate: Basic realm="docs"` without the
 *            right user and password (default alice / `open:sesame`, a colon in the password)
 *            /  `basicword`, links /a /b /moved     /a  `basicworda`     /b  `basicwordb`
 *            /moved        302 to other's /  (credentials must not follow)
 *            /robots.txt   public, `Sitemap: <other>/sitemap.xml`  (credentials must not go there)
 *   digest   HTTP Digest (intranet/digest.ts: qop=auth, SHA-256 then MD5 offered, realm
 *            "wiki@intranet", strict; nonces stale after `digestStaleAfter` uses), default dave / `d1gest pw`
 *            /  `digestword`, links /a     /a  `digestworda`
 *   bearer   `Authorization: Bearer <token>` (default `bearer-token-7f3a9c`), else 401 + `Bearer realm="api"`
 *            /  `bearerword`, links /a     /a  `bearerworda`
 *   form     a wiki with a form login (default wendy / `wiki p&ss=1`, which needs urlencoding):
 *            /login        GET: `<form method="post" action="/session">` with a hidden `csrf` (new
 *                          per GET, one use), a hidden `next` (from ?next=), `user`, `pass`; `loginpageword`
 *            /session      POST (urlencoded): right csrf + user + pass → `Set-Cookie: sid=…; HttpOnly;
 *                          Path=/; SameSite=Lax` and 303 to `next` or /; else 200, the login page
 *                          with an error (role="alert"); GET → 405
 *            /             `wikihomeword`, links /wiki/1…/wiki/<wikiPages>, /logout
 *            /wiki/N       `wikiwordN`, links /, /wiki/N+1, /logout
 *                          without a live session, these (and any other path) → 302 /login?next=<path>;
 *                          a session serves `sessionRequests` requests, then expires
 *            /logout       ends the session (counted in `logouts`), clears the cookie, 303 /login
 *   other    public: /  `otherword`     /listed  `otherlistedword` (only the sitemap names it)
 *            /sitemap.xml  lists /listed
 *   tls      HTTPS, certificate signed by a private CA (`caFile`): /  `tlsword`, links /a   /a  `tlsworda`
 *   selfSigned  HTTPS, self-signed certificate: /  `selfsignedword`
 *   proxy    a forward proxy (intranet/proxy.ts): absolute-form http requests forwarded, CONNECT
 *            tunnels; loopback targets only; resolves `<site>.intranet.test` (see `nameUrl`) itself;
 *            with `proxyAuth`, 407 without the right Proxy-Authorization
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer as createHttpsServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RequestListener } from 'node:http';
import { listen, logged, loopbackAddresses, page, pathOf, sendHtml, serve, type IntranetRequest, type Listening, type SiteName } from './intranet/common.ts';
import { DIGEST_REALM, digestSite } from './intranet/digest.ts';
import { formSite } from './intranet/form.ts';
import { proxyServer, type ProxyRequest } from './intranet/proxy.ts';
import { basicSite, bearerSite, otherSite, type Credentials } from './intranet/sites.ts';
import { makeCertificates } from './intranet/tls.ts';

export type { Credentials, IntranetRequest, ProxyRequest, SiteName };

export type IntranetOptions = {
  readonly basic?: Credentials;
  readonly digest?: Credentials;
  /** Requests a digest nonce answers before it is stale (default: no limit). */
  readonly digestStaleAfter?: number;
  readonly bearerToken?: string;
  readonly form?: Credentials;
  /** Wiki pages /wiki/1…N (default 6). */
  readonly wikiPages?: number;
  /** Requests a form-login session serves before it expires (default 4). */
  readonly sessionRequests?: number;
  /** Credentials the proxy requires (Proxy-Authorization: Basic); default none. */
  readonly proxyAuth?: Credentials;
};

/** A host: its origin, the same origin by a name only the proxy resolves, what it received. */
export type Site = {
  readonly url: string;
  /** `address:port`, as an insecureHosts entry or NO_PROXY would name it. */
  readonly host: string;
  /** e.g. `http://basic.intranet.test:41234`: reachable through the proxy only. */
  readonly nameUrl: string;
  readonly log: IntranetRequest[];
};

export type Intranet = {
  readonly basic: Site & Credentials;
  readonly digest: Site & Credentials & { readonly realm: string; readonly refusals: readonly string[] };
  readonly bearer: Site & { readonly token: string };
  readonly form: Site &
    Credentials & {
      readonly pages: number;
      readonly sessionRequests: number;
      readonly logins: number;
      readonly failedLogins: number;
      readonly logouts: number;
    };
  readonly other: Site;
  readonly tls: Site & { readonly caFile: string; readonly caPem: string };
  readonly selfSigned: Site;
  readonly proxy: {
    readonly url: string;
    readonly host: string;
    readonly log: ProxyRequest[];
    readonly auth?: Credentials /** The proxy URL with its credentials in it (with `proxyAuth`). */;
    readonly authUrl?: string;
  };
  /** Every host's requests, in order. */
  readonly log: IntranetRequest[];
  /** Whether hosts have addresses of their own (else 127.0.0.1 with distinct ports). */
  readonly distinctHosts: boolean;
  /** How long making the certificates took (ms). */
  readonly certificateMs: number;
  close(): Promise<void>;
};

const DEFAULTS = {
  basic: { user: 'alice', password: 'open:sesame' },
  digest: { user: 'dave', password: 'd1gest pw' },
  bearerToken: 'bearer-token-7f3a9c',
  form: { user: 'wendy', password: 'wiki p&ss=1' },
} as const;

/** Starts every host of the intranet (certificates made once, here); `close()` stops them all and removes the certificates. */
export async function startIntranet(options: IntranetOptions = {}): Promise<Intranet> {
  const { addresses, distinct } = await loopbackAddresses(7);
  const [basicAt, digestAt, bearerAt, formAt, otherAt, proxyAt, selfAt] = addresses as [string, string, string, string, string, string, string];
  const tlsAt = '127.0.0.1';
  const dir = await mkdtemp(join(tmpdir(), 'trawl-intranet-'));
  const running: Listening[] = [];
  const log: IntranetRequest[] = [];
  const names = new Map<string, string>();
  const site = async (name: SiteName, handler: RequestListener, address: string, tls?: { key: string; cert: string }): Promise<Site> => {
    const own: IntranetRequest[] = [];
    const h = logged(name, [log, own], handler);
    const l = tls ? await listen(createHttpsServer(tls, h), address, 'https') : await serve(h, address);
    running.push(l);
    names.set(`${name.toLowerCase()}.intranet.test`, address);
    const port = new URL(l.url).port;
    return { url: l.url, host: l.host, nameUrl: `${tls ? 'https' : 'http'}://${name.toLowerCase()}.intranet.test:${port}`, log: own };
  };
  const close = async () => {
    await Promise.all(running.map((l) => l.close()));
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const certs = await makeCertificates(dir, tlsAt, selfAt);
    let otherUrl = '';
    const other = await site(
      'other',
      otherSite(() => otherUrl),
      otherAt,
    );
    otherUrl = other.url;
    const basicCreds = options.basic ?? DEFAULTS.basic;
    const basic = await site(
      'basic',
      basicSite(basicCreds, () => otherUrl),
      basicAt,
    );
    const digestCreds = options.digest ?? DEFAULTS.digest;
    const dig = digestSite(digestCreds, options.digestStaleAfter ?? Infinity);
    const digest = await site('digest', dig.handler, digestAt);
    const token = options.bearerToken ?? DEFAULTS.bearerToken;
    const bearer = await site('bearer', bearerSite(token), bearerAt);
    const formCreds = options.form ?? DEFAULTS.form;
    const pages = options.wikiPages ?? 6;
    const sessionRequests = options.sessionRequests ?? 4;
    const wiki = formSite(formCreds, pages, sessionRequests);
    const form = await site('form', wiki.handler, formAt);
    const tls = await site('tls', tlsSite('tls'), tlsAt, certs.server);
    const selfSigned = await site('selfSigned', tlsSite('selfsigned'), selfAt, certs.selfSigned);
    const proxyLog: ProxyRequest[] = [];
    const proxyListening = await listen(proxyServer(names, proxyLog, options.proxyAuth), proxyAt);
    running.push(proxyListening);
    const auth = options.proxyAuth;
    const authUrl = auth && `http://${encodeURIComponent(auth.user)}:${encodeURIComponent(auth.password)}@${proxyListening.host}`;
    return {
      basic: { ...basic, ...basicCreds },
      digest: { ...digest, ...digestCreds, realm: DIGEST_REALM, refusals: dig.refusals },
      bearer: { ...bearer, token },
      form: {
        ...form,
        ...formCreds,
        pages,
        sessionRequests,
        get logins() {
          return wiki.counts.logins;
        },
        get failedLogins() {
          return wiki.counts.failedLogins;
        },
        get logouts() {
          return wiki.counts.logouts;
        },
      },
      other,
      tls: { ...tls, caFile: certs.caFile, caPem: certs.caPem },
      selfSigned,
      proxy: { url: proxyListening.url, host: proxyListening.host, log: proxyLog, ...(auth ? { auth, authUrl: authUrl! } : {}) },
      log,
      distinctHosts: distinct,
      certificateMs: certs.ms,
      close,
    };
  } catch (e) {
    await close();
    throw e;
  }
}

/** The HTTPS hosts' pages: `<word>word` on / (linking /a), `<word>worda` on /a. */
function tlsSite(word: string): RequestListener {
  return (req, res) => {
    switch (pathOf(req)) {
      case '/robots.txt':
        res.writeHead(200, { 'content-type': 'text/plain' });
        return res.end('User-agent: *\nAllow: /\n');
      case '/':
        return sendHtml(res, 200, page(`${word} home`, `${word}word`, [['/a', 'Page A']]));
      case '/a':
        return sendHtml(res, 200, page(`${word} A`, `${word}worda`, [['/', 'Home']]));
      default:
        return sendHtml(res, 404, page('Not found', 'nothing'));
    }
  };
}
