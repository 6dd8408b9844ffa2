/**
 * A portal user has nothing to run: "running" means they may sign in. The engine only tells the
 * service that the users changed, so that sessions are judged against the users of now (a user
 * switched off or deleted is signed out on their next request).
 */
import type { PortalUser } from '@lucky/contracts';
import type { Engine, RuleHandle } from '../../core/engine.js';
import type { Portal } from './portal.service.js';

export class PortalEngine implements Engine<PortalUser> {
  constructor(private readonly portal: Portal) {}

  async start(): Promise<RuleHandle<PortalUser, unknown>> {
    this.portal.usersChanged();
    return {
      stop: async () => this.portal.usersChanged(),
      update: async () => {
        this.portal.usersChanged();
        return true;
      },
    };
  }
}
