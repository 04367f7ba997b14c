/**
 * Checks every signature an artifact's signed header declares. A hybrid artifact names two
 * slots (ML-DSA and RSA-PSS): both must verify, so stripping one fails. Each slot's key is
 * looked up by key id, and its published algorithm must equal the slot's: an artifact cannot
 * ask for a weaker or different algorithm than the key was made for, and `none` never passes.
 */
import { createPublicKey, constants, verify as nodeVerify } from 'node:crypto';
import { ARTIFACT_ALGORITHMS, signingInput, type Artifact } from './format.ts';

export interface PublishedKey {
  key_id: string;
  algorithm: string;
  /** Standard base64 of the raw public key (ML-DSA encoding; DER SPKI for RSA). */
  public_key: string;
}

export type VerifyFn = (alg: string, publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array) => boolean | Promise<boolean>;

let noble: Promise<typeof import('@noble/post-quantum/ml-dsa.js')> | undefined;
/** @noble/post-quantum and its hashes are loaded on the first ML-DSA check, not with the package (a server that imports this module for its formats never needs them). */
const mlDsa = () => (noble ??= import('@noble/post-quantum/ml-dsa.js'));

/** Verification with @noble/post-quantum and node:crypto: no WebAssembly, no server. */
export const portableVerify: VerifyFn = async (alg, publicKey, message, signature) => {
  try {
    switch (alg) {
      case 'ML-DSA-65':
        return (await mlDsa()).ml_dsa65.verify(signature, message, publicKey);
      case 'ML-DSA-87':
        return (await mlDsa()).ml_dsa87.verify(signature, message, publicKey);
      case 'RSA-PSS-SHA256':
        return nodeVerify(
          'sha256',
          message,
          {
            key: createPublicKey({ key: Buffer.from(publicKey), format: 'der', type: 'spki' }),
            padding: constants.RSA_PKCS1_PSS_PADDING,
            saltLength: 32,
          },
          signature,
        );
      default:
        return false;
    }
  } catch {
    return false;
  }
};

export async function verifyArtifactSignatures(
  artifact: Artifact,
  keyById: (kid: string) => { algorithm: string; publicKey: Uint8Array } | undefined,
  verifyFn: VerifyFn = portableVerify,
): Promise<boolean> {
  const { header } = artifact;
  if (artifact.consistent === false) return false;
  if (header.typ !== 'LATTICE-LICENSE' || header.ver !== 1) return false;
  if (artifact.signatures.length !== header.sigs.length) return false;
  // Policy: every artifact carries a post-quantum signature.
  if (!header.sigs.some((s) => s.alg.startsWith('ML-DSA-'))) return false;
  const message = signingInput(header, artifact.payload);
  for (let i = 0; i < header.sigs.length; i++) {
    const slot = header.sigs[i]!;
    if (!(ARTIFACT_ALGORITHMS as readonly string[]).includes(slot.alg)) return false;
    const key = keyById(slot.kid);
    if (!key || key.algorithm !== slot.alg) return false;
    if (!(await verifyFn(slot.alg, key.publicKey, message, artifact.signatures[i]!))) return false;
  }
  return true;
}
