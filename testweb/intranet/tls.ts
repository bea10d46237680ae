/**
 * Certificates made at test time with the openssl CLI, into a temporary folder: a private CA and a
 * server certificate it signs (for `localhost` and the TLS host's address), and a self-signed
 * certificate for another host. EC keys (P-256) keep it to a few tens of milliseconds; the three
 * keys are made in parallel, then the CA signs the server's request.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export type KeyPair = { readonly key: string; readonly cert: string };
export type Certificates = {
  /** The private CA's certificate: its PEM file (for fetch.caFile) and contents. */
  readonly caFile: string;
  readonly caPem: string;
  /** Signed by the CA, for `localhost`, `tls.intranet.test`, 127.0.0.1 and the TLS host's address. */
  readonly server: KeyPair;
  /** Self-signed (no CA), for `localhost`, `selfsigned.intranet.test` and the self-signed host's address. */
  readonly selfSigned: KeyPair;
  /** How long making them took. */
  readonly ms: number;
};

/** The openssl CLI on PATH (/usr/bin/openssl here; OpenSSL 3). */
const OPENSSL = 'openssl';

const EC = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

/** A config of our own: the system's openssl.cnf adds extensions of its own that could clash. */
const config = (tlsAddress: string, selfAddress: string) => `
[req]
distinguished_name = dn
prompt = no
[dn]
CN = unused
[ca_ext]
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
[server_ext]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = serverAuth
subjectAltName = DNS:localhost, DNS:tls.intranet.test, IP:127.0.0.1${tlsAddress === '127.0.0.1' ? '' : `, IP:${tlsAddress}`}
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
[self_ext]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = serverAuth
subjectAltName = DNS:localhost, DNS:selfsigned.intranet.test, IP:${selfAddress}
`;

export async function makeCertificates(dir: string, tlsAddress: string, selfAddress: string): Promise<Certificates> {
  const started = performance.now();
  const f = (name: string) => join(dir, name);
  await writeFile(f('openssl.cnf'), config(tlsAddress, selfAddress));
  const common = ['-config', f('openssl.cnf'), '-days', '2'];
  await Promise.all([
    run(OPENSSL, [
      'req',
      '-x509',
      ...EC,
      '-keyout',
      f('ca.key'),
      '-out',
      f('ca.pem'),
      ...common,
      '-extensions',
      'ca_ext',
      '-subj',
      '/CN=Trawl intranet test CA',
    ]),
    run(OPENSSL, ['req', '-new', ...EC, '-keyout', f('server.key'), '-out', f('server.csr'), '-config', f('openssl.cnf'), '-subj', '/CN=localhost']),
    run(OPENSSL, [
      'req',
      '-x509',
      ...EC,
      '-keyout',
      f('self.key'),
      '-out',
      f('self.pem'),
      ...common,
      '-extensions',
      'self_ext',
      '-subj',
      '/CN=self-signed.intranet.test',
    ]),
  ]);
  const serial = `0x${randomBytes(8).toString('hex')}`;
  await run(OPENSSL, [
    'x509',
    '-req',
    '-in',
    f('server.csr'),
    '-CA',
    f('ca.pem'),
    '-CAkey',
    f('ca.key'),
    '-set_serial',
    serial,
    '-days',
    '2',
    '-extfile',
    f('openssl.cnf'),
    '-extensions',
    'server_ext',
    '-out',
    f('server.pem'),
  ]);
  const [caPem, serverKey, serverCert, selfKey, selfCert] = await Promise.all(
    ['ca.pem', 'server.key', 'server.pem', 'self.key', 'self.pem'].map((n) => readFile(f(n), 'utf8')),
  );
  return {
    caFile: f('ca.pem'),
    caPem: caPem!,
    server: { key: serverKey!, cert: serverCert! },
    selfSigned: { key: selfKey!, cert: selfCert! },
    ms: performance.now() - started,
  };
}
