/**
 * Which addresses a fetch may connect to. A crawl allowed a wide scope must not be walked by a link,
 * a redirect or a DNS answer into a cloud's metadata service (169.254.169.254), a private network
 * or the machine itself: those are non-public addresses, and a crawl reaches them only when
 * `fetch.allowPrivateAddresses` allows it — by default, only the ranges its seeds resolve into (so
 * crawling an intranet, or a site on loopback, keeps working). The check runs on the address DNS
 * actually returned, for every connection, through the lookup the fetcher's connections use;
 * an IP literal (which skips DNS) is checked before the request.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions, type LookupOneOptions } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { parseCidr } from '../../lib/cidr.ts';

/** The setting: "seeds", true (any address), false (public ones only), or CIDR ranges allowed. */
export type PrivateAddressSetting = 'seeds' | boolean | readonly string[];

/** A named range of non-public addresses. */
type Range = { readonly name: string; readonly cidr: string; readonly block: BlockList };

const range = (name: string, cidr: string): Range => {
  const [net, bits] = cidr.split('/') as [string, string];
  const block = new BlockList();
  block.addSubnet(net, Number(bits), isIP(net) === 6 ? 'ipv6' : 'ipv4');
  return { name, cidr, block };
};

/** The address space that is not the public Internet (IANA's special-purpose registries, in short). */
const NON_PUBLIC: readonly Range[] = [
  range('unspecified', '0.0.0.0/8'),
  range('private', '10.0.0.0/8'),
  range('carrier-grade NAT', '100.64.0.0/10'),
  range('loopback', '127.0.0.0/8'),
  range('link-local', '169.254.0.0/16'),
  range('private', '172.16.0.0/12'),
  range('IETF protocol assignments', '192.0.0.0/24'),
  range('private', '192.168.0.0/16'),
  range('benchmarking', '198.18.0.0/15'),
  range('multicast', '224.0.0.0/4'),
  range('reserved', '240.0.0.0/4'),
  range('unspecified', '::/128'),
  range('loopback', '::1/128'),
  range('unique local', 'fc00::/7'),
  range('link-local', 'fe80::/10'),
  range('multicast', 'ff00::/8'),
];

/** The non-public range an address is in, or undefined for a public address. IPv4-mapped IPv6 is read as IPv4. */
export function nonPublicRange(address: string): Range | undefined {
  const v4 = mappedIPv4(address);
  const a = v4 ?? address;
  const family = isIP(a) === 6 ? 'ipv6' : 'ipv4';
  if (!isIP(a)) return undefined;
  return NON_PUBLIC.find((r) => r.block.check(a, family));
}

/** `::ffff:127.0.0.1` (or `::ffff:7f00:1`) → `127.0.0.1`; anything else → undefined. */
function mappedIPv4(address: string): string | undefined {
  const m = /^::ffff:(?:0:)?(.+)$/i.exec(address);
  if (!m) return undefined;
  if (isIP(m[1]!) === 4) return m[1];
  const hex = /^([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(m[1]!);
  if (!hex) return undefined;
  const [hi, lo] = [parseInt(hex[1]!, 16), parseInt(hex[2]!, 16)];
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

export type AddressVerdict = { readonly ok: true } | { readonly ok: false; readonly reason: string };

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** The error a refused connection fails with (the fetcher maps it to `blocked-address`). */
export class BlockedAddressError extends Error {
  readonly code = 'ERR_BLOCKED_ADDRESS';
}

const ALLOWED: AddressVerdict = Object.freeze({ ok: true });
/** Addresses whose verdict a policy remembers at most. */
const MAX_VERDICTS = 4096;

export class AddressPolicy {
  private readonly verdicts = new Map<string, AddressVerdict>();

  private constructor(
    /** Everything allowed (fetch.allowPrivateAddresses: true). */
    private readonly any: boolean,
    /** Non-public ranges allowed anyway. */
    private readonly allowed: readonly Range[],
    /** How the setting is named in a refusal. */
    private readonly why: string,
  ) {}

  /** Every address allowed. */
  static any(): AddressPolicy {
    return new AddressPolicy(true, [], 'fetch.allowPrivateAddresses is true');
  }

  /** Public addresses, and these ranges (CIDR). Throws on a range that is not one. */
  static allowing(cidrs: readonly string[], why = 'fetch.allowPrivateAddresses does not allow it'): AddressPolicy {
    return new AddressPolicy(
      false,
      cidrs.map((c) => range('allowed', parseCidr(c))),
      why,
    );
  }

  /**
   * The policy a setting gives for these seeds: with "seeds", the non-public ranges the seeds'
   * hosts resolve into (every address DNS gives) are allowed — a seed on 127.0.0.2 allows the
   * loopback range, one on 10.1.2.3 allows 10.0.0.0/8.
   */
  static async of(setting: PrivateAddressSetting, seeds: readonly string[], resolve: (host: string) => Promise<string[]> = resolveAll): Promise<AddressPolicy> {
    if (setting === true) return AddressPolicy.any();
    if (setting === false) return AddressPolicy.allowing([], 'fetch.allowPrivateAddresses is false');
    if (Array.isArray(setting)) return AddressPolicy.allowing(setting);
    const ranges = new Map<string, Range>();
    for (const seed of seeds) {
      let host: string;
      try {
        host = new URL(seed).hostname.replace(/^\[|\]$/g, '');
      } catch {
        continue;
      }
      const addresses = isIP(host) ? [host] : await resolve(host).catch(() => []);
      for (const a of addresses) {
        const r = nonPublicRange(a);
        if (!r) continue;
        // A seed on loopback allows loopback in both families.
        for (const same of NON_PUBLIC.filter((x) => x.name === r.name && (x === r || r.name === 'loopback'))) ranges.set(same.cidr, same);
      }
    }
    const allowed = [...ranges.values()];
    return new AddressPolicy(
      false,
      allowed,
      allowed.length
        ? `it is not in a range the seeds resolve into (${allowed.map((r) => r.cidr).join(', ')}); set fetch.allowPrivateAddresses to allow more`
        : 'no seed resolves into a private range; set fetch.allowPrivateAddresses to allow it',
    );
  }

  /**
   * Whether a connection to `address` may be made, and why not. The fetcher asks for every
   * request to an IP literal and every connection: the verdict is remembered per address (the
   * policy never changes), since each BlockList check builds a native SocketAddress — ~7 µs and
   * six native objects for the garbage collector per request to 127.0.0.1.
   */
  check(address: string): AddressVerdict {
    if (this.any) return ALLOWED;
    let verdict = this.verdicts.get(address);
    if (verdict === undefined) {
      verdict = this.decide(address);
      // (Bounded: a crawl of many hosts meets many addresses.)
      if (this.verdicts.size >= MAX_VERDICTS) this.verdicts.clear();
      this.verdicts.set(address, verdict);
    }
    return verdict;
  }

  private decide(address: string): AddressVerdict {
    const r = nonPublicRange(address);
    if (!r) return ALLOWED;
    const v4 = mappedIPv4(address) ?? address;
    if (this.allowed.some((a) => a.block.check(v4, isIP(v4) === 6 ? 'ipv6' : 'ipv4'))) return ALLOWED;
    return { ok: false, reason: `${address} is a ${r.name} address (${r.cidr}); ${this.why}` };
  }

  /**
   * A `dns.lookup` for the fetcher's connections: the answers this policy refuses are dropped, and
   * a name with none left fails with BlockedAddressError before any connection is made.
   */
  readonly lookup = (hostname: string, options: LookupOneOptions | LookupAllOptions, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      const ok = addresses.filter((a) => this.check(a.address).ok);
      if (!ok.length) {
        const refused = this.check(addresses[0]!.address);
        return callback(new BlockedAddressError(`${hostname}: ${refused.ok ? 'no address' : refused.reason}`), []);
      }
      if ((options as LookupAllOptions).all) callback(null, ok);
      else callback(null, ok[0]!.address, ok[0]!.family);
    });
  };
}

/** Every address of a host name. */
function resolveAll(host: string): Promise<string[]> {
  return new Promise((resolve, reject) => dnsLookup(host, { all: true }, (err, addresses) => (err ? reject(err) : resolve(addresses.map((a) => a.address)))));
}
