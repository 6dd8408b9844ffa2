/** The magic packet: 6 × 0xFF, the MAC 16 times, then the optional 6-byte SecureOn password. */
export function macBytes(mac: string): Buffer {
  const hex = mac.replace(/[^0-9a-fA-F]/g, '');
  if (hex.length !== 12) throw new Error(`bad MAC address: ${mac}`);
  return Buffer.from(hex, 'hex');
}

export function magicPacket(mac: string, secureOn = ''): Buffer {
  const target = macBytes(mac);
  const password = secureOn ? macBytes(secureOn) : Buffer.alloc(0);
  const packet = Buffer.alloc(6 + 16 * 6 + password.length, 0xff);
  for (let i = 0; i < 16; i++) target.copy(packet, 6 + i * 6);
  password.copy(packet, 6 + 16 * 6);
  return packet;
}
