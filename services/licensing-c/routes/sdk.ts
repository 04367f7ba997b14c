/** GET /api/v1/sdk/{language} — how to call this API from python, nodejs, java or csharp (no authentication). */
import { Type } from 'typebox';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { ApiError } from '../../../platform/http/errors.ts';
import { CDetailError } from '../errors.ts';
import { SDK_LANGUAGES, sdkInfo, type SdkLanguage } from '../sdk-info.ts';
import { TAG, type CDeps } from './context.ts';

export function registerSdk(app: ServiceApp, deps: CDeps): void {
  app.get(
    '/api/v1/sdk/:language',
    {
      schema: {
        tags: [TAG],
        summary: 'SDK installation and usage for a language',
        params: Type.Object({ language: Type.String({ maxLength: 32, description: SDK_LANGUAGES.join(', ') }) }),
        response: {
          200: Type.Object({
            language: Type.String(),
            installation: Type.String(),
            import: Type.String(),
            example: Type.String(),
            docs: Type.String(),
          }),
          '4xx': CDetailError,
        },
      },
    },
    async (req) => {
      const language = req.params.language.toLowerCase();
      if (!(SDK_LANGUAGES as readonly string[]).includes(language)) {
        throw new ApiError(404, 'unknown_language', `No SDK information for '${req.params.language}'; available: ${SDK_LANGUAGES.join(', ')}`);
      }
      return sdkInfo(language as SdkLanguage, `${req.protocol}://${req.host}${deps.prefix}`);
    },
  );
}
