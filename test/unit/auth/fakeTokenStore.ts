import type { KeyRecord, NewRefreshToken, RotateOutcome, TokenStore } from '../../../auth/tokens';
import { hashSecret } from '../../../auth/secrets';

interface FakeRefresh extends NewRefreshToken {
  keyId: string;
  family: string;
  usedAt: Date | null;
  revokedAt: Date | null;
}

/** In-memory TokenStore with the semantics of dbTokenStore (auth/store.ts). */
export class FakeTokenStore implements TokenStore {
  readonly keys = new Map<string, KeyRecord & { hash: string; lastUsedAt: Date | null }>();
  readonly refresh: FakeRefresh[] = [];

  addKey(id: string, organisation: string, key: string): void {
    this.keys.set(id, { id, organisation, revokedAt: null, hash: hashSecret(key), lastUsedAt: null });
  }
  revoke(id: string): void {
    this.keys.get(id)!.revokedAt = new Date();
  }

  async findKeyByHash(keyHash: string) {
    const k = [...this.keys.values()].find((x) => x.hash === keyHash);
    return k ? { id: k.id, organisation: k.organisation, revokedAt: k.revokedAt } : null;
  }
  async findKey(id: string) {
    const k = this.keys.get(id);
    return k ? { id: k.id, organisation: k.organisation, revokedAt: k.revokedAt } : null;
  }
  async markKeyUsed(id: string, at: Date) {
    this.keys.get(id)!.lastUsedAt = at;
  }
  async insertRefreshToken(keyId: string, t: NewRefreshToken) {
    this.refresh.push({ ...t, keyId, family: t.jti, usedAt: null, revokedAt: null });
  }
  async rotateRefreshToken(tokenHash: string, next: NewRefreshToken, now: Date): Promise<RotateOutcome> {
    const t = this.refresh.find((r) => r.tokenHash === tokenHash);
    if (!t) return { status: 'unknown' };
    if (t.usedAt || t.revokedAt) {
      for (const r of this.refresh) if (r.family === t.family) r.revokedAt ??= now;
      return { status: 'reused' };
    }
    if (t.expiresAt.getTime() <= now.getTime()) return { status: 'expired' };
    t.usedAt = now;
    this.refresh.push({ ...next, keyId: t.keyId, family: t.family, usedAt: null, revokedAt: null });
    return { status: 'rotated', keyId: t.keyId, family: t.family };
  }
}
