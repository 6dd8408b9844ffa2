/** Password hashing with scrypt; the stored form carries its own parameters so they can be raised later. */
import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const N = 1 << 15;
const R = 8;
const P = 1;
const KEYLEN = 32;

function scrypt(password: string, salt: Buffer, keylen: number, opts: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scryptCb(password, salt, keylen, opts, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, KEYLEN, { N, r: R, p: P, maxmem: 64 * 1024 * 1024 });
  return `scrypt$${N}$${R}$${P}$${salt.toString('base64')}$${key.toString('base64')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [kind, n, r, p, salt, hash] = stored.split('$');
  if (kind !== 'scrypt' || !n || !r || !p || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const key = await scrypt(password, Buffer.from(salt, 'base64'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: 256 * 1024 * 1024,
  });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/** A hash no password matches, checked for unknown names so that timing does not tell which names exist. */
let decoy: Promise<string> | undefined;

/**
 * Whether `password` matches `hash`. Without a hash (an unknown name) a decoy is checked all the same,
 * so a wrong name costs the time of a wrong password. An empty password never matches.
 */
export async function checkPassword(password: string, hash: string | undefined): Promise<boolean> {
  const against = hash || (await (decoy ??= hashPassword(randomBytes(16).toString('base64'))));
  if (password === '') return false;
  const ok = await verifyPassword(password, against).catch(() => false);
  return ok && !!hash;
}

/** A password nobody can guess and a person can still type: 20 characters without look-alikes. */
export function randomPassword(length = 20): string {
  const alphabet = 'abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789';
  const bytes = randomBytes(length * 2);
  let out = '';
  for (const b of bytes) {
    if (b < 256 - (256 % alphabet.length)) out += alphabet[b % alphabet.length];
    if (out.length === length) break;
  }
  return out.length === length ? out : randomPassword(length);
}
