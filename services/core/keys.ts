/** Prefix of the core API's keys (`qcore_...`): read by the service descriptor and the API description. */
export const CORE_KEY_PREFIX = 'qcore';
