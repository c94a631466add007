import { Injectable } from '@nestjs/common';

/**
 * Whether this replica is stopping: from then on it reports itself not ready, so the load balancer
 * sends it nothing new, while the requests it has finish.
 */
@Injectable()
export class Draining {
  private since: number | null = null;

  get active(): boolean {
    return this.since !== null;
  }

  begin(): void {
    this.since ??= Date.now();
  }
}
