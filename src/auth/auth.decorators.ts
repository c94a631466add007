import { SetMetadata } from '@nestjs/common';

export const PUBLIC_ROUTE = 'portico:public';
export const SERVER_TOKENS_ALLOWED = 'portico:server-tokens';

/** Reachable without a bearer token. The allowlist is exactly the routes marked with this. */
export const Public = () => SetMetadata(PUBLIC_ROUTE, true);

/** Also open to tokens scoped to virtual servers; the handler checks which server. */
export const ServerTokensAllowed = () => SetMetadata(SERVER_TOKENS_ALLOWED, true);
