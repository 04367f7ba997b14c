/**
 * What GET /api/v1/sdk/{language} tells: how to use this API from each language, true for
 * this project. Lattice publishes no client package to a registry: Python, Java and C# use
 * the language's plain HTTP client; Node.js uses fetch for this API plus the project's own
 * offline verifier package (packages/license-verifier in the repository) for signed artifacts.
 */
export const SDK_LANGUAGES = ['python', 'nodejs', 'java', 'csharp'] as const;

/** The tarball `npm pack` writes for packages/license-verifier (its name and version; a test keeps them in step). */
export const VERIFIER_TARBALL = 'lattice-license-verifier-0.1.0.tgz';

/**
 * The verifier's install, as its README gives it: `npm pack` runs the package's build (prepack)
 * and packs dist/; installing the tarball brings its two dependencies. (Installing the
 * directory itself would link the TypeScript sources without dist/, and the import would fail.)
 */
export const VERIFIER_INSTALL = [
  '# This API: Node.js 20+ (fetch is built in), no package needed.',
  '# Offline verification of signed license artifacts: pack the verifier in a Lattice checkout (builds dist/), then install the tarball in your application.',
  'cd <lattice>/packages/license-verifier && npm pack',
  `cd <your-app> && npm install <lattice>/packages/license-verifier/${VERIFIER_TARBALL}`,
  '# Its dependencies, @noble/post-quantum and canonicalize, install with it.',
].join('\n');
export type SdkLanguage = (typeof SDK_LANGUAGES)[number];

export interface SdkInfo {
  language: SdkLanguage;
  installation: string;
  import: string;
  example: string;
  docs: string;
}

/** The SDK entry for `language`, with `apiUrl` (this service's address) written into the examples. */
export function sdkInfo(language: SdkLanguage, apiUrl: string): SdkInfo {
  const docs = `${apiUrl}/docs`;
  switch (language) {
    case 'python':
      return {
        language,
        installation: 'pip install requests',
        import: 'import requests',
        example: `import requests

API = "${apiUrl}"
headers = {"Authorization": "Bearer <API_KEY>"}

lic = requests.post(f"{API}/api/v1/licenses/generate", headers=headers,
                    json={"end_customer_id": "customer-42", "features": ["pro"], "expires_in_days": 365}).json()
check = requests.post(f"{API}/api/v1/licenses/validate", json={"license_key": lic["license_key"]}).json()
print(check["valid"], check.get("days_remaining"))`,
        docs,
      };
    case 'nodejs':
      return {
        language,
        installation: VERIFIER_INSTALL,
        import: "import { OfflineVerifier } from '@lattice/license-verifier';",
        example: `const API = '${apiUrl}';
const headers = { Authorization: 'Bearer <API_KEY>', 'Content-Type': 'application/json' };

const lic = await (await fetch(\`\${API}/api/v1/licenses/generate\`, {
  method: 'POST', headers, body: JSON.stringify({ end_customer_id: 'customer-42', features: ['pro'] }),
})).json();
const check = await (await fetch(\`\${API}/api/v1/licenses/validate\`, {
  method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ license_key: lic.license_key }),
})).json();
console.log(check.valid, check.days_remaining);

// Offline, without a server: signed artifacts of the licensing service (port 8101) against its published keys.
import { OfflineVerifier } from '@lattice/license-verifier';
const { keys } = await (await fetch('<base_url>/api/v1/v2/keys')).json();
const verifier = new OfflineVerifier({ keys });
const result = await verifier.validate('<artifact_compact>');
console.log(result.is_valid, result.status);`,
        docs,
      };
    case 'java':
      return {
        language,
        installation: 'No package needed: java.net.http.HttpClient ships with Java 11 and later.',
        import: 'import java.net.URI;\nimport java.net.http.HttpClient;\nimport java.net.http.HttpRequest;\nimport java.net.http.HttpResponse;',
        example: `HttpClient http = HttpClient.newHttpClient();
HttpRequest generate = HttpRequest.newBuilder(URI.create("${apiUrl}/api/v1/licenses/generate"))
    .header("Authorization", "Bearer <API_KEY>")
    .header("Content-Type", "application/json")
    .POST(HttpRequest.BodyPublishers.ofString("{\\"end_customer_id\\": \\"customer-42\\", \\"features\\": [\\"pro\\"]}"))
    .build();
String license = http.send(generate, HttpResponse.BodyHandlers.ofString()).body();

HttpRequest validate = HttpRequest.newBuilder(URI.create("${apiUrl}/api/v1/licenses/validate"))
    .header("Content-Type", "application/json")
    .POST(HttpRequest.BodyPublishers.ofString("{\\"license_key\\": \\"<LICENSE_KEY>\\"}"))
    .build();
System.out.println(http.send(validate, HttpResponse.BodyHandlers.ofString()).body());`,
        docs,
      };
    case 'csharp':
      return {
        language,
        installation: 'No package needed: System.Net.Http and System.Net.Http.Json ship with .NET 5 and later.',
        import: 'using System.Net.Http;\nusing System.Net.Http.Headers;\nusing System.Net.Http.Json;',
        example: `var http = new HttpClient { BaseAddress = new Uri("${apiUrl}/") };
http.DefaultRequestHeaders.Authorization = new AuthenticationHeaderValue("Bearer", "<API_KEY>");

var generated = await http.PostAsJsonAsync("api/v1/licenses/generate",
    new { end_customer_id = "customer-42", features = new[] { "pro" }, expires_in_days = 365 });
var license = await generated.Content.ReadFromJsonAsync<Dictionary<string, object>>();

var check = await http.PostAsJsonAsync("api/v1/licenses/validate", new { license_key = license!["license_key"].ToString() });
Console.WriteLine(await check.Content.ReadAsStringAsync());`,
        docs,
      };
  }
}
