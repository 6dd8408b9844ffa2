/**
 * The daemon's `httpChallenges` (core/services/httpChallenges.ts): ACME tokens by port, and the
 * plain-HTTP listeners of each port that answer them.
 */
import type { HttpChallengesService } from '../core/services/httpChallenges.js';

interface Answerer {
  name: string;
  changed: () => Promise<void> | void;
}

const NONE: ReadonlyMap<string, string> = new Map();

export function httpChallenges(): HttpChallengesService {
  const tokens = new Map<number, Map<string, string>>();
  const answerers = new Map<number, Set<Answerer>>();
  const tell = async (port: number) => {
    await Promise.all([...(answerers.get(port) ?? [])].map((a) => a.changed()));
  };
  return {
    async present(port, token, keyAuth) {
      const on = answerers.get(port);
      if (!on?.size) return null;
      const names = [...new Set([...on].map((a) => a.name))];
      const own = tokens.get(port) ?? new Map<string, string>();
      tokens.set(port, own);
      own.set(token, keyAuth);
      await tell(port);
      return {
        rules: names,
        remove: async () => {
          own.delete(token);
          if (own.size === 0 && tokens.get(port) === own) tokens.delete(port);
          await tell(port);
        },
      };
    },
    answer(port, name, changed) {
      const a: Answerer = { name, changed };
      const set = answerers.get(port) ?? new Set<Answerer>();
      answerers.set(port, set);
      set.add(a);
      return () => {
        set.delete(a);
        if (set.size === 0 && answerers.get(port) === set) answerers.delete(port);
      };
    },
    tokens: (port) => tokens.get(port) ?? NONE,
  };
}
