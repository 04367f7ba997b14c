/** Checks of operator input shared by the commands, with the messages they print. */

// The `email` format the HTTP routes validate with (ajv-formats, "fast" mode).
const EMAIL =
  /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i;

export function checkEmail(flag: string, value: string): string {
  const email = value.trim();
  if (email.length > 254 || !EMAIL.test(email)) throw new Error(`${flag} must be an email address such as ops@example.com, got '${value}'`);
  return email;
}

/** A date in the future (an expiry), or null when not given. */
export function futureDate(flag: string, value: string | undefined, now = new Date()): Date | null {
  if (value === undefined) return null;
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) throw new Error(`${flag} is not a date: '${value}' (use ISO 8601, e.g. 2030-01-31T00:00:00Z)`);
  if (d.getTime() <= now.getTime()) throw new Error(`${flag} ${value} is in the past: the key would never work`);
  return d;
}

/**
 * The comma-separated scopes, each one the service knows; when not given, the service's
 * default scopes (none for a service without scopes).
 */
export function checkScopes(value: string | undefined, service: { id: string; scopes?: readonly string[]; defaultScopes?: readonly string[] }): string[] {
  if (value === undefined) return [...(service.defaultScopes ?? [])];
  const scopes = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const known = service.scopes ?? [];
  if (scopes.length === 0 && known.length) throw new Error(`--scopes names no scope; give one or more of ${known.join(', ')}, or leave it out for the default`);
  const unknown = scopes.filter((s) => !known.includes(s));
  if (unknown.length) {
    throw new Error(
      known.length
        ? `unknown scope${unknown.length > 1 ? 's' : ''} ${unknown.map((s) => `'${s}'`).join(', ')} for ${service.id} (scopes: ${known.join(', ')})`
        : `service ${service.id} has no scopes; leave out --scopes`,
    );
  }
  return [...new Set(scopes)];
}
