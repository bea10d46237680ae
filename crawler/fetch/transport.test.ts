import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { request } from 'undici';
import { startIntranet, type Intranet } from '../../testweb/intranet.ts';
import { createTransport, type Transport, type TransportOptions } from './transport.ts';

/** GETs `url` through the transport's dispatcher for it: status and body. */
async function get(t: Transport, url: string): Promise<{ status: number; text: string }> {
  const res = await request(url, { dispatcher: t.dispatcherFor(new URL(url)) });
  return { status: res.statusCode, text: await res.body.text() };
}

/** The error code a GET fails with (the TLS ones are OpenSSL's names). */
async function failure(t: Transport, url: string): Promise<string> {
  try {
    await get(t, url);
  } catch (e) {
    const err = e as { code?: string; cause?: { code?: string }; message?: string };
    return err.code ?? err.cause?.code ?? String(err.message);
  }
  return 'no error';
}

describe('createTransport', () => {
  let net: Intranet;
  const open: Transport[] = [];
  const transport = (o: Partial<TransportOptions> = {}) => {
    const t = createTransport({ timeoutMs: 2000, connectionsPerOrigin: 2, ...o });
    open.push(t);
    return t;
  };
  /** The proxy's log entries from here on. */
  const proxied = () => {
    const from = net.proxy.log.length;
    return () => net.proxy.log.slice(from).map((r) => `${r.method} ${r.target}`);
  };

  before(async () => {
    net = await startIntranet();
  });
  after(async () => {
    await Promise.all(open.map((t) => t.close()));
    await net.close();
  });

  it('goes direct by default and says so', async () => {
    const t = transport();
    assert.equal(t.describe(), 'direct');
    assert.match((await get(t, `${net.other.url}/`)).text, /otherword/);
  });

  it('trusts a private CA only when it is given one, besides the public roots', async () => {
    assert.equal(await failure(transport(), `${net.tls.url}/`), 'UNABLE_TO_VERIFY_LEAF_SIGNATURE');
    const t = transport({ ca: [net.tls.caPem] });
    assert.match((await get(t, `${net.tls.url}/`)).text, /tlsword/);
    assert.match((await get(t, `https://localhost:${new URL(net.tls.url).port}/a`)).text, /tlsworda/, 'by name too');
    assert.equal(await failure(t, `${net.selfSigned.url}/`), 'DEPTH_ZERO_SELF_SIGNED_CERT', 'a CA does not vouch for a self-signed host');
    assert.equal(t.describe(), 'direct; 1 extra CA certificate trusted');
  });

  it('accepts a self-signed certificate only for the hosts listed, which weakens no other host', async () => {
    assert.equal(await failure(transport(), `${net.selfSigned.url}/`), 'DEPTH_ZERO_SELF_SIGNED_CERT');
    const t = transport({ insecureHosts: [net.selfSigned.host] });
    assert.match((await get(t, `${net.selfSigned.url}/`)).text, /selfsignedword/);
    assert.equal(await failure(t, `${net.tls.url}/`), 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'another host is still checked');
    assert.match(t.describe(), /certificates not checked for 127\.0\.0\.\d+:\d+$/);
    const otherPort = transport({ insecureHosts: [`${new URL(net.selfSigned.url).hostname}:1`] });
    assert.equal(await failure(otherPort, `${net.selfSigned.url}/`), 'DEPTH_ZERO_SELF_SIGNED_CERT', 'host:port means that port only');
    if (net.distinctHosts) {
      const anyPort = transport({ insecureHosts: [new URL(net.selfSigned.url).hostname] });
      assert.match((await get(anyPort, `${net.selfSigned.url}/`)).text, /selfsignedword/, 'a host alone means every port');
    }
  });

  it('refuses settings it cannot read, naming them', () => {
    assert.throws(
      () => createTransport({ timeoutMs: 1, connectionsPerOrigin: 1, insecureHosts: ['a.example/path'] }),
      /fetch\.insecureHosts: "a\.example\/path"/,
    );
    assert.throws(
      () => createTransport({ timeoutMs: 1, connectionsPerOrigin: 1, proxy: 'socks5://u:secret@p:1080' }),
      (e: Error) => /fetch\.proxy: a proxy must be http/.test(e.message) && !e.message.includes('secret'),
    );
    assert.throws(
      () => createTransport({ timeoutMs: 1, connectionsPerOrigin: 1, env: { HTTPS_PROXY: 'http://u:secret@[bad' } }),
      (e: Error) => /HTTPS_PROXY: "http:\/\/\*\*\*@\[bad"/.test(e.message),
    );
  });

  it('sends every request through fetch.proxy: plain http in absolute-form, https through a CONNECT tunnel', async () => {
    const t = transport({ proxy: net.proxy.url, ca: [net.tls.caPem] });
    const seen = proxied();
    assert.match((await get(t, `${net.other.url}/`)).text, /otherword/);
    assert.match((await get(t, `${net.tls.url}/`)).text, /tlsword/);
    assert.deepEqual(seen(), [`GET ${net.other.url}/`, `CONNECT ${net.tls.host}`]);
    assert.equal(t.describe(), `through proxy ${net.proxy.url} (from fetch.proxy); 1 extra CA certificate trusted`);
  });

  it('lets the proxy resolve names the crawler cannot, and the extra CA vouch for the target through the tunnel', async () => {
    const t = transport({ proxy: net.proxy.url, ca: [net.tls.caPem] });
    assert.match((await get(t, `${net.other.nameUrl}/`)).text, /otherword/);
    assert.match((await get(t, `${net.tls.nameUrl}/a`)).text, /tlsworda/);
    assert.equal(
      await failure(transport({ proxy: net.proxy.url }), `${net.tls.nameUrl}/`),
      'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
      'the target is checked through the tunnel',
    );
    assert.match(
      (await get(transport({ proxy: net.proxy.url, insecureHosts: [new URL(net.selfSigned.nameUrl).host] }), `${net.selfSigned.nameUrl}/`)).text,
      /selfsignedword/,
    );
  });

  it('applies the address policy to direct connections only', async () => {
    const refuseAll: NonNullable<TransportOptions['lookup']> = (host, _o, cb) =>
      cb(Object.assign(new Error(`${host}: refused by policy`), { code: 'ERR_BLOCKED_ADDRESS' }), []);
    const byName = `https://localhost:${new URL(net.tls.url).port}/`;
    assert.equal(await failure(transport({ lookup: refuseAll, ca: [net.tls.caPem] }), byName), 'ERR_BLOCKED_ADDRESS');
    const t = transport({ lookup: refuseAll, ca: [net.tls.caPem], proxy: net.proxy.url });
    assert.match((await get(t, byName)).text, /tlsword/, 'the proxy resolves, the policy never sees it');
    assert.match(t.describe(), /the address policy checks direct connections only$/);
    const env = transport({ lookup: refuseAll, ca: [net.tls.caPem], env: { HTTPS_PROXY: net.proxy.url, NO_PROXY: 'localhost' } });
    assert.equal(await failure(env, byName), 'ERR_BLOCKED_ADDRESS', 'a NO_PROXY host is a direct connection');
  });

  it('uses HTTP_PROXY and HTTPS_PROXY from the environment it is given, except for NO_PROXY hosts', async () => {
    const t = transport({ env: { HTTP_PROXY: net.proxy.url, HTTPS_PROXY: net.proxy.url, NO_PROXY: `example.org, ${net.basic.host}` }, ca: [net.tls.caPem] });
    const seen = proxied();
    assert.match((await get(t, `${net.other.url}/`)).text, /otherword/);
    assert.match((await get(t, `${net.tls.url}/`)).text, /tlsword/);
    assert.equal((await get(t, `${net.basic.url}/robots.txt`)).status, 200);
    assert.deepEqual(seen(), [`GET ${net.other.url}/`, `CONNECT ${net.tls.host}`], 'the NO_PROXY host went direct');
    assert.equal(net.basic.log.at(-1)?.path, '/robots.txt');
    assert.equal(
      t.describe(),
      `through proxy ${net.proxy.url} (from HTTP_PROXY, HTTPS_PROXY) for http and https, ` +
        `except NO_PROXY hosts (example.org, ${net.basic.host}); 1 extra CA certificate trusted`,
    );
  });

  it('with HTTPS_PROXY alone, sends only https through it — and never reads process.env itself', async () => {
    const saved = process.env.http_proxy;
    process.env.http_proxy = 'http://127.0.0.1:9';
    try {
      const t = transport({ env: { https_proxy: net.proxy.url }, ca: [net.tls.caPem] });
      const seen = proxied();
      assert.match((await get(t, `${net.other.url}/`)).text, /otherword/);
      assert.match((await get(t, `${net.tls.url}/`)).text, /tlsword/);
      assert.deepEqual(seen(), [`CONNECT ${net.tls.host}`]);
      assert.match(t.describe(), new RegExp(`^http direct, https through proxy ${net.proxy.url} \\(from https_proxy\\)`));
      assert.equal(transport({ env: {} }).describe(), 'direct');
    } finally {
      if (saved === undefined) delete process.env.http_proxy;
      else process.env.http_proxy = saved;
    }
  });

  it('sends the credentials of a proxy URL as Proxy-Authorization, and never shows the password', async () => {
    const guarded = await startIntranet({ proxyAuth: { user: 'pat', password: 'pr0xy s3cret' } });
    try {
      const t = transport({ proxy: guarded.proxy.authUrl!, ca: [guarded.tls.caPem] });
      assert.match((await get(t, `${guarded.other.url}/`)).text, /otherword/);
      assert.match((await get(t, `${guarded.tls.url}/`)).text, /tlsword/);
      const basic = `Basic ${Buffer.from('pat:pr0xy s3cret').toString('base64')}`;
      assert.deepEqual(
        guarded.proxy.log.map((r) => [r.method, r.proxyAuthorization]),
        [
          ['GET', basic],
          ['CONNECT', basic],
        ],
      );
      assert.equal(guarded.other.log[0]?.authorization, undefined, 'nothing reached the target');
      assert.equal(t.describe(), `through proxy ${guarded.proxy.url} (with credentials) (from fetch.proxy); 1 extra CA certificate trusted`);
      assert.doesNotMatch(t.describe(), /pr0xy|s3cret|pat/);
      // Without them the proxy answers 407: a plain request fails as such, a tunnel fails to open.
      const anonymous = transport({ proxy: guarded.proxy.url, ca: [guarded.tls.caPem] });
      assert.match(await failure(anonymous, `${guarded.other.url}/`), /UND_ERR_INVALID_ARG|407/);
      assert.match(await failure(anonymous, `${guarded.tls.url}/`), /UND_ERR_ABORTED|407/);
    } finally {
      await guarded.close();
    }
  });

  it("reaches this machine's loopback directly when the environment's proxy is elsewhere", async () => {
    // (192.0.2.1 is TEST-NET-1: nothing answers there. Through it, the request would hang or fail.)
    const t = transport({ env: { HTTP_PROXY: 'http://192.0.2.1:3128', HTTPS_PROXY: 'http://192.0.2.1:3128' } });
    assert.match((await get(t, `${net.other.url}/`)).text, /otherword/);
    assert.match(t.describe(), /through proxy http:\/\/192\.0\.2\.1:3128/);
  });
});
