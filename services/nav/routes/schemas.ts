/** Schemas shared by the positioning routes (declared once, shown in /openapi.json). */
import { Type } from 'typebox';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

export const Position = Type.Object(
  {
    latitude: Type.Number({ description: 'degrees, WGS 84' }),
    longitude: Type.Number({ description: 'degrees, WGS 84' }),
    altitude: Type.Number({ description: 'metres above the WGS 84 ellipsoid' }),
    accuracy_m: Nullable(Type.Number({ description: '3-D one-sigma, m: weighted covariance inflated by the RAIM variance factor (the receiver\'s own estimate for a receiver fix; null when it reports none)' })),
    horizontal_accuracy_m: Nullable(Type.Number()),
    vertical_accuracy_m: Nullable(Type.Number()),
    speed_mps: Nullable(Type.Number({ description: 'horizontal speed from the Doppler velocity solution; null when the source has no Doppler' })),
    heading_deg: Nullable(Type.Number({ description: 'course over ground from north; null below 0.2 m/s, where a heading is noise' })),
    timestamp: Type.String({ description: 'UTC of the epoch' }),
  },
  { $id: 'NavPosition' },
);

export const Raim = Type.Object({
  available: Type.Boolean(),
  fault_detected: Type.Boolean(),
  excluded: Type.Array(Type.String(), { description: 'satellites left out by fault exclusion' }),
  test_statistic: Nullable(Type.Number()),
  threshold: Nullable(Type.Number()),
});

export const Integrity = Type.Object(
  {
    score: Type.Number({ description: '0-100: geometric mean of the position, timing and spoofing integrity' }),
    spoofing_detected: Nullable(Type.Boolean({ description: 'null when the request set spoofing_check false' })),
    holdover_active: Type.Boolean(),
    satellites_used: Type.Integer(),
    constellations: Type.Array(Type.String(), { description: 'constellations used in the solution: GPS, Galileo, GLONASS' }),
    raim: Raim,
  },
  { $id: 'NavIntegrity' },
);

export const Bounds = Type.Object({ lower_ns: Type.Number(), upper_ns: Type.Number(), confidence: Type.Number() });

export const Timing = Type.Object(
  {
    utc: Type.String(),
    tai: Type.String(),
    gps_week: Type.Integer(),
    gps_tow: Type.Number(),
    source: Type.String({ description: 'gnss (locked) or holdover' }),
    accuracy_ns: Nullable(Type.Number({ description: 'one-sigma of the receiver clock estimate (clock filter), ns' })),
    leap_seconds: Type.Integer({ description: 'GPS - UTC from the leap second table' }),
    bounds: Type.Optional(Nullable(Bounds)),
  },
  { $id: 'NavTiming' },
);

export const Check = Type.Object({ type: Type.String(), result: Type.String({ description: 'pass or warning' }), score: Type.Number(), available: Type.Boolean() });

export const Verdict = Type.Object({ verdict: Type.String({ description: 'valid or invalid' }), reason: Type.Optional(Type.String()) });

export const BundleIdParams = Type.Object({ bundle_id: Type.String({ minLength: 1, maxLength: 128 }) });

export const Any = Type.Unknown();
