// `fleetls pki`: a CA for the fleet, each agent's server certificate with the names the
// gateway dials (the inventory's address: an IP SAN for an IP, a DNS SAN otherwise, plus
// --name extras), and the gateway's client certificate. ECDSA P-256 keys, written 0600.
// Built on @peculiar/x509 over Node's WebCrypto; nothing here encodes ASN.1 by hand.
import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { invalidArgument } from '@fleetls/core';
import * as x509 from '@peculiar/x509';
import { writeOwnFile } from './own-file.js';

type CryptoKey = webcrypto.CryptoKey;
type CryptoKeyPair = webcrypto.CryptoKeyPair;

// Node's webcrypto is the DOM Crypto @peculiar/x509 types, but @types/node declares it apart.
x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY_MS = 86_400_000;
export const CA_DAYS = 3650;
export const LEAF_DAYS = 397;
export const MAX_DAYS = 36_500;

export interface PkiFiles {
  dir: string;
  caCert: string;
  caKey: string;
}

export function pkiFiles(dir: string): PkiFiles {
  return { dir, caCert: join(dir, 'ca.crt'), caKey: join(dir, 'ca.key') };
}

/** `file` written `mode` by descriptor, never through a planted link (own-file.ts). */
function writeOwn(file: string, pem: string, mode: number): void {
  writeOwnFile(file, pem, {
    mode,
    chmod: true,
    refusal: (why) => `pki: refusing to write ${file}: ${why} (remove it, or use another --dir)`,
  });
}

/** Key material written for its owner only; certificates are public. */
function writeKey(file: string, pem: string): void {
  writeOwn(file, pem, 0o600);
}

function writeCert(file: string, pem: string): void {
  writeOwn(file, pem, 0o644);
}

/**
 * The CA's common name: `fleetls CA HOST DATE RANDOM`, so that two CAs are told apart in a
 * certificate mismatch (the agent's log, `openssl x509 -subject`), which `fleetls CA` alone
 * could not (issue 40, item 8).
 */
export function caName(now = new Date(), host = hostname()): string {
  const h = host.replace(/[^A-Za-z0-9.-]/g, '-').slice(0, 40) || 'host';
  const suffix = Buffer.from(webcrypto.getRandomValues(new Uint8Array(3))).toString('hex');
  return `fleetls CA ${h} ${now.toISOString().slice(0, 10)} ${suffix}`;
}

async function keyPem(key: CryptoKey): Promise<string> {
  const der = await webcrypto.subtle.exportKey('pkcs8', key);
  return x509.PemConverter.encode(der, 'PRIVATE KEY');
}

function serial(): string {
  // 16 random bytes, high bit clear: a positive INTEGER, as RFC 5280 asks.
  const bytes = webcrypto.getRandomValues(new Uint8Array(16));
  bytes[0] = (bytes[0] as number) & 0x7f;
  return Buffer.from(bytes).toString('hex');
}

function validity(days: number): { notBefore: Date; notAfter: Date } {
  // An hour back: a host whose clock is a little behind still accepts a fresh certificate.
  const notBefore = new Date(Date.now() - 3_600_000);
  return { notBefore, notAfter: new Date(notBefore.getTime() + days * DAY_MS) };
}

/** The name a certificate is issued to, as a file name and CN: letters, digits, . _ - only. */
export function checkName(what: string, name: string): void {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,252}$/.test(name)) {
    throw invalidArgument(`${what}: expected a host name or IP address (letters, digits, . _ -), got '${name}'`);
  }
}

/** `fleetls pki init`: a CA certificate and key in `dir` (refuses to overwrite an existing CA). */
export async function initCa(
  dir: string,
  opts: { days?: number; name?: string } = {},
): Promise<PkiFiles & { name: string }> {
  const f = pkiFiles(dir);
  if (existsSync(f.caKey) || existsSync(f.caCert)) {
    throw invalidArgument(`pki init: ${dir} already holds a CA (ca.crt, ca.key); use another --dir`);
  }
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const keys = (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as CryptoKeyPair;
  const name = opts.name ?? caName();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: `CN=${name}`,
    ...validity(opts.days ?? CA_DAYS),
    keys,
    signingAlgorithm: ALG,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  writeKey(f.caKey, await keyPem(keys.privateKey));
  writeCert(f.caCert, cert.toString('pem'));
  return { ...f, name };
}

async function loadCa(f: PkiFiles): Promise<{ cert: x509.X509Certificate; key: CryptoKey }> {
  let certPem: string;
  let keyText: string;
  try {
    certPem = readFileSync(f.caCert, 'utf8');
    keyText = readFileSync(f.caKey, 'utf8');
  } catch (err) {
    throw invalidArgument(`pki: no CA in ${f.dir} (${(err as Error).message}); run fleetls pki init first`);
  }
  const cert = new x509.X509Certificate(certPem);
  const key = await webcrypto.subtle.importKey(
    'pkcs8',
    x509.PemConverter.decode(keyText)[0] as ArrayBuffer,
    ALG,
    false,
    ['sign'],
  );
  return { cert, key: key as CryptoKey };
}

/** The SAN entries for the names a peer is dialled by: an IP SAN for an IP, DNS otherwise. */
export function subjectAltNames(names: string[]): x509.JsonGeneralName[] {
  const seen = new Set<string>();
  const out: x509.JsonGeneralName[] = [];
  for (const n of names) {
    if (seen.has(n)) continue;
    seen.add(n);
    out.push(isIP(n) ? { type: 'ip', value: n } : { type: 'dns', value: n });
  }
  return out;
}

async function issue(
  f: PkiFiles,
  opts: { cn: string; sans: string[]; usage: 'server' | 'client'; days: number; base: string },
): Promise<{ cert: string; key: string }> {
  const ca = await loadCa(f);
  const keys = (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as CryptoKeyPair;
  const eku = opts.usage === 'server' ? x509.ExtendedKeyUsage.serverAuth : x509.ExtendedKeyUsage.clientAuth;
  const extensions: x509.Extension[] = [
    new x509.BasicConstraintsExtension(false, undefined, true),
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
    new x509.ExtendedKeyUsageExtension([eku], false),
    await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    await x509.AuthorityKeyIdentifierExtension.create(ca.cert),
  ];
  if (opts.sans.length > 0) extensions.push(new x509.SubjectAlternativeNameExtension(subjectAltNames(opts.sans)));
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: `CN=${opts.cn}`,
    issuer: ca.cert.subject,
    ...validity(opts.days),
    publicKey: keys.publicKey,
    signingKey: ca.key,
    signingAlgorithm: ALG,
    extensions,
  });
  const files = { cert: join(f.dir, `${opts.base}.crt`), key: join(f.dir, `${opts.base}.key`) };
  writeKey(files.key, await keyPem(keys.privateKey));
  writeCert(files.cert, cert.toString('pem'));
  return files;
}

/**
 * `fleetls pki issue HOST…`: per host, `<host>.crt` and `<host>.key` (what the Ansible role
 * installs as the agent's certificate), its SANs the address the gateway dials plus `extra`.
 */
export async function issueAgent(
  pki: PkiFiles,
  host: { name: string; dialled?: string },
  extra: string[],
  days = LEAF_DAYS,
): Promise<{ cert: string; key: string; sans: string[] }> {
  checkName('pki issue HOST', host.name);
  const sans = [...new Set([...(host.dialled ? [host.dialled] : [host.name]), ...extra])];
  const files = await issue(pki, { cn: host.name, sans, usage: 'server', days, base: host.name });
  return { ...files, sans };
}

/**
 * `fleetls pki client`: gateway.crt and gateway.key, the client certificate agents require.
 * `base` names the files otherwise (`fleetls nats issue --tls`: one per host, as NATS clients).
 */
export async function issueClient(files: PkiFiles, name = 'fleetls-gateway', days = LEAF_DAYS, base = 'gateway') {
  checkName('pki client --name', name);
  return issue(files, { cn: name, sans: [], usage: 'client', days, base });
}

/** A server certificate for `cn` with `sans` (`fleetls nats node --tls`: a NATS node's), as `base`.crt/.key. */
export async function issueServer(files: PkiFiles, cn: string, sans: string[], base: string, days = LEAF_DAYS) {
  checkName('server name', cn);
  return issue(files, { cn, sans, usage: 'server', days, base });
}

/** Whole days until `pem`'s notAfter (negative once expired). */
export function daysToExpiry(notAfter: Date, now = Date.now()): number {
  return Math.floor((notAfter.getTime() - now) / DAY_MS);
}

export function parseDays(flag: string, value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > MAX_DAYS) {
    throw invalidArgument(`${flag}: expected whole days in 1..${MAX_DAYS}, got '${value}'`);
  }
  return n;
}
