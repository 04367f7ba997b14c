/** Request pieces the routes share: an OpenQASM text, a shot count, ids in paths, report periods. */
import { Type } from 'typebox';

export const Qasm = Type.String({ minLength: 1, maxLength: 262_144, description: 'OpenQASM 2 or 3 text' });
// No maximum here: each target's own limit is checked by the route and answered as SHOTS_EXCEEDED.
export const Shots = Type.Integer({ minimum: 1, default: 1000, description: 'Repetitions (default 1000; each target has its own maximum, above it 400 SHOTS_EXCEEDED)' });
export const JobIdParam = Type.Object({ job_id: Type.String({ minLength: 1, maxLength: 128 }) });
export const TaskIdParam = Type.Object({ task_id: Type.String({ minLength: 1, maxLength: 2048 }) });
export const Format = Type.Union([Type.Literal('json'), Type.Literal('csv')], { default: 'json' });
export const Period = {
  from: Type.Optional(Type.String({ format: 'date-time', description: 'Start (inclusive); default 30 days ago' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'End (inclusive); default now' })),
};
