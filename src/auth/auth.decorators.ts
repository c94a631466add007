import { SetMetadata } from '@nestjs/common';

export const PUBLIC_ROUTE = 'portico:public';
export const SERVER_TOKENS_ALLOWED = 'portico:server-tokens';
export const ADMIN_SESSION_ROUTE = 'portico:admin-session';

/** Reachable without a bearer token. The allowlist is exactly the routes marked with this. */
export const Public = () => SetMetadata(PUBLIC_ROUTE, true);

/** Also open to tokens scoped to virtual servers; the handler checks which server. */
export const ServerTokensAllowed = () => SetMetadata(SERVER_TOKENS_ALLOWED, true);

/**
 * Authenticated by the admin pages' session cookie instead of a bearer token. Only for use with
 * the admin session guard, which `AdminController` applies together with this.
 */
export const AdminSessionRoute = () => SetMetadata(ADMIN_SESSION_ROUTE, true);
