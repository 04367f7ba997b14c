/** Request and response schemas several core routes share. */
import { Type } from 'typebox';

export const JobStatus = Type.String({
  description: 'queued, validating, optimizing, running, completed, failed or cancelled',
});

export const Level = Type.Integer({ minimum: 0, maximum: 3, default: 2, description: 'optimizer level 0 to 3' });

export const Qasm = Type.String({ minLength: 1, maxLength: 512 * 1024, description: 'OpenQASM 2 or 3 text' });
export const BackendId = Type.String({ minLength: 1, maxLength: 128, description: 'a backend id of GET /api/v2/backends' });

export const JobIdParams = Type.Object({ job_id: Type.String({ minLength: 1, maxLength: 128 }) });

export const Results = Type.Union(
  [
    Type.Object({
      counts: Type.Record(Type.String(), Type.Integer(), { description: 'bit string (highest classical bit first) -> shots' }),
      probabilities: Type.Record(Type.String(), Type.Number(), { description: 'bit string -> fraction of the shots' }),
    }),
    Type.Null(),
  ],
  { description: 'null until the job completes' },
);

export const JobError = Type.Union([Type.Object({ code: Type.String(), message: Type.String() }), Type.Null()], {
  description: 'why the job failed; null otherwise',
});
