/** What a gateway key looks like and may do: read by the descriptor, the keys and the routes alike, so none of them imports the descriptor. */
export const GATEWAY_KEY_PREFIX = 'sk-lat';
/** What a key may do (CONTRACT): `chat:write` for completions, `models:read` for the catalog. */
export const GATEWAY_SCOPES = ['chat:write', 'models:read'] as const;
