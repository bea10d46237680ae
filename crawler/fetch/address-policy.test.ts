// Which addresses a fetch may connect to: the ranges, the settings, and real connections refused.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { serveHandler, type HandlerServer } from '../../testweb/index.ts';
import { AddressPolicy, nonPublicRange } from './address-policy.ts';
import { Fetcher } from './fetcher.ts';

describe('non-public address ranges', () => {
  it('names the range of every non-public address, IPv4-mapped IPv6 read as IPv4, and none for a public one', () => {
    const table: [string, string | undefined][] = [
      ['127.0.0.1', 'loopback'],
      ['127.4.5.6', 'loopback'],
      ['::1', 'loopback'],
      ['::ffff:127.0.0.1', 'loopback'],
      ['::ffff:7f00:1', 'loopback'],
      ['10.255.255.1', 'private'],
      ['172.16.0.1', 'private'],
      ['172.31.255.255', 'private'],
      ['192.168.1.1', 'private'],
      ['169.254.169.254', 'link-local'],
      ['fe80::1', 'link-local'],
      ['fd12:3456::1', 'unique local'],
      ['100.64.0.1', 'carrier-grade NAT'],
      ['0.0.0.0', 'unspecified'],
      ['::', 'unspecified'],
      ['224.0.0.1', 'multicast'],
      ['93.184.216.34', undefined],
      ['172.32.0.1', undefined],
      ['2606:4700::1111', undefined],
      ['::ffff:93.184.216.34', undefined],
    ];
    for (const [address, name] of table) assert.equal(nonPublicRange(address)?.name, name, address);
  });
});

describe('fetch.allowPrivateAddresses', () => {
  const resolve = async (host: string) =>
    (({ 'intranet.example': ['10.1.2.3'], localhost: ['127.0.0.1', '::1'], 'www.example': ['93.184.216.34'] }) as Record<string, string[]>)[host] ?? [];
  const verdicts = (p: AddressPolicy, addresses: string[]) => addresses.map((a) => p.check(a).ok);

  it('seeds (the default): allows the ranges the seeds resolve into, and no other non-public one', async () => {
    const onLoopback = await AddressPolicy.of('seeds', ['http://127.0.0.2:8080/'], resolve);
    assert.deepEqual(verdicts(onLoopback, ['127.0.0.1', '::1', '::ffff:127.0.0.9', '10.0.0.1', '169.254.169.254', '93.184.216.34']), [
      true,
      true,
      true,
      false,
      false,
      true,
    ]);
    const intranet = await AddressPolicy.of('seeds', ['https://intranet.example/wiki'], resolve);
    assert.deepEqual(verdicts(intranet, ['10.9.9.9', '192.168.0.1', '127.0.0.1', '93.184.216.34']), [true, false, false, true]);
    const publicOnly = await AddressPolicy.of('seeds', ['https://www.example/'], resolve);
    const refused = publicOnly.check('127.0.0.1');
    assert.ok(
      !refused.ok && /127\.0\.0\.1 is a loopback address \(127\.0\.0\.0\/8\).*fetch\.allowPrivateAddresses/.test(refused.reason),
      JSON.stringify(refused),
    );
    assert.ok((await AddressPolicy.of('seeds', ['http://localhost:3000/'], resolve)).check('::1').ok);
  });

  it('true allows any address, false only public ones, a list those ranges', async () => {
    assert.deepEqual(verdicts(await AddressPolicy.of(true, [], resolve), ['127.0.0.1', '169.254.169.254']), [true, true]);
    assert.deepEqual(verdicts(await AddressPolicy.of(false, ['http://127.0.0.1/'], resolve), ['127.0.0.1', '93.184.216.34']), [false, true]);
    const listed = await AddressPolicy.of(['10.20.0.0/16', '192.168.1.7', 'fd00::/8'], [], resolve);
    assert.deepEqual(verdicts(listed, ['10.20.3.4', '10.21.0.1', '192.168.1.7', '192.168.1.8', 'fd00::5', '127.0.0.1']), [
      true,
      false,
      true,
      false,
      true,
      false,
    ]);
  });
});

describe('the fetcher with an address policy', () => {
  let web: HandlerServer;
  const hits: string[] = [];
  before(async () => {
    web = await serveHandler((req, res) => {
      hits.push(req.url ?? '');
      if (req.url === '/to-metadata') {
        res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' });
        return res.end();
      }
      res.end('hello');
    });
  });
  after(() => web.close());
  const port = () => new URL(web.url).port;
  const fetcher = (p: AddressPolicy) => new Fetcher({ userAgent: 'TestBot/1.0', timeoutMs: 5000, maxBodyBytes: 10_000, addresses: p });

  it('fetches from the ranges the seeds resolve into', async () => {
    const f = fetcher(await AddressPolicy.of('seeds', [web.url]));
    try {
      const r = await f.fetch(`${web.url}/ok`);
      assert.equal(r.kind, 'response');
    } finally {
      await f.close();
    }
  });

  it('refuses a loopback address, as an IP literal or as a name DNS answers with, before connecting', async () => {
    const f = fetcher(await AddressPolicy.of(false, []));
    try {
      const before = hits.length;
      const literal = await f.fetch(`http://127.0.0.1:${port()}/literal`);
      assert.ok(
        literal.kind === 'error' && literal.code === 'blocked-address' && /127\.0\.0\.1 is a loopback address/.test(literal.message),
        JSON.stringify(literal),
      );
      const named = await f.fetch(`http://localhost:${port()}/named`);
      assert.ok(named.kind === 'error' && named.code === 'blocked-address' && /localhost: .* is a loopback address/.test(named.message), JSON.stringify(named));
      const v6 = await f.fetch(`http://[::ffff:127.0.0.1]:${port()}/mapped`);
      assert.ok(v6.kind === 'error' && v6.code === 'blocked-address', JSON.stringify(v6));
      assert.equal(hits.length, before, 'no request reached the server');
    } finally {
      await f.close();
    }
  });

  it('refuses a redirect into the cloud metadata range at once, followed hop by hop as the crawler does', async () => {
    const f = fetcher(await AddressPolicy.of('seeds', [web.url]));
    try {
      const first = await f.fetch(`${web.url}/to-metadata`);
      assert.ok(first.kind === 'response' && first.status === 302 && first.location);
      const t0 = performance.now();
      const hop = await f.fetch(first.location);
      assert.ok(hop.kind === 'error' && hop.code === 'blocked-address' && /169\.254\.169\.254 is a link-local address/.test(hop.message), JSON.stringify(hop));
      assert.ok(performance.now() - t0 < 1000, 'refused without trying to connect');
      const unroutable = await f.fetch('http://10.255.255.1/');
      assert.ok(unroutable.kind === 'error' && unroutable.code === 'blocked-address');
    } finally {
      await f.close();
    }
  });
});
