/** Address ranges written as CIDR (`10.0.0.0/8`, `fd00::/8`; a bare address is a range of one). */
import { isIP } from 'node:net';

/** The range in canonical form (`address/bits`); throws on anything that is not one. */
export function parseCidr(cidr: string): string {
  const [net, bits, extra] = cidr.trim().split('/');
  const family = isIP(net ?? '');
  const max = family === 6 ? 128 : 32;
  if (!family || extra !== undefined || (bits !== undefined && !(/^\d+$/.test(bits) && Number(bits) <= max)))
    throw new Error(`"${cidr}" is not an address range (e.g. 10.0.0.0/8 or fd00::/8)`);
  return `${net}/${bits ?? max}`;
}

/** Whether `cidr` is a valid range. */
export function isCidr(cidr: string): boolean {
  try {
    parseCidr(cidr);
    return true;
  } catch {
    return false;
  }
}
