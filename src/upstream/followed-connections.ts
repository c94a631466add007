import { authorizationContext, type UpstreamClient } from './upstream-client';
import { type ActingFor, type UpstreamConnection } from './upstream-connection';
import { UpstreamFailure } from './upstream-error';
import { type UpstreamTarget } from './upstream-target';

/** Someone following something upstream (a resource, a task) on a connection that can be lost. */
export interface Follower {
  /** The upstream connection is gone: nothing more will come. */
  lost(): void;
}

/** What is followed through one upstream connection, by the upstream's own name for it. */
export interface Follow<F extends Follower> {
  connection: Promise<UpstreamConnection>;
  /** Opened for its follows, and closed with them; a 2025 session's own connection is not. */
  owned: boolean;
  followers: Map<string, Set<F>>;
}

/**
 * The upstream connections this replica holds for what listens and sessions follow upstream
 * (resources, tasks), one per key: a connection opened for follows is shared by every follow
 * that acts in the same authorization context on the same gateway. A connection that is lost
 * is forgotten and its followers told; the ones opened here close with the module.
 */
export class FollowedConnections<F extends Follower, T extends Follow<F> = Follow<F>> {
  private readonly follows = new Map<string, T>();

  /** `what` names what is followed, for the error when its gateway is gone. */
  constructor(
    private readonly client: UpstreamClient,
    private readonly what: string,
  ) {}

  get(key: string): T | undefined {
    return this.follows.get(key);
  }

  /**
   * The follow of a connection acting for `actingFor` on the gateway that `fits` what is to be
   * added, opened by `open` (which builds the follow and its connection) when none does. An
   * upstream listen follows a bounded number of things, so a full connection gets a sibling
   * under the same authorization context rather than refusing whoever comes next.
   */
  async shared(
    gatewayId: string,
    actingFor: ActingFor,
    open: (target: UpstreamTarget) => T,
    fits: (follow: T) => boolean = () => true,
  ): Promise<[string, T]> {
    const target = await this.client.target(gatewayId);
    if (!target)
      throw new UpstreamFailure(
        'unreachable',
        `the gateway of this ${this.what} is no longer active`,
      );
    const context = `${gatewayId}\0${authorizationContext(target, actingFor)}`;
    for (let sibling = 0; ; sibling++) {
      const key = sibling === 0 ? context : `${context}\0${sibling}`;
      const follow = this.follows.get(key);
      if (!follow) return [key, this.watched(key, open(target))];
      if (fits(follow)) return [key, follow];
    }
  }

  /** Records the follow under its key; when its connection is lost it goes, its followers told. */
  watched(key: string, follow: T): T {
    if (this.follows.get(key) === follow) return follow;
    this.follows.set(key, follow);
    void follow.connection
      .then((open) => open.lost)
      .then(
        () => {
          this.forget(key, follow);
          for (const followers of [...follow.followers.values()])
            for (const each of [...followers]) each.lost();
        },
        () => this.forget(key, follow),
      );
    return follow;
  }

  forget(key: string, follow: T): void {
    if (this.follows.get(key) === follow) this.follows.delete(key);
  }

  /** Closes the connections opened for follows. */
  async close(): Promise<void> {
    const owned = [...this.follows.values()].filter((follow) => follow.owned);
    this.follows.clear();
    await Promise.all(
      owned.map(async ({ connection }) =>
        (await connection.catch(() => null))?.close().catch(() => undefined),
      ),
    );
  }
}
