/**
 * The PDF export: a readable document of one bundle (its fields, its hashes, its signature
 * and key id) with the steps to verify it offline, the exact signed bytes printed in an
 * appendix and the bundle's JSON attached as `<bundle id>.json`. Made with pdfkit's standard
 * fonts only (no font files), so it renders the same everywhere.
 */
import PDFDocument from 'pdfkit';
import { sha3Hash } from './hash.ts';
import { bundleIdOf, detectProfile, unsignedView, type Bundle, type EvidenceProfile } from './profiles.ts';
import { signedBytes } from './sign.ts';

const MARGIN = 56;

/** Leaf values by dotted path, in the bundle's own order. */
function flatten(value: unknown, prefix: string, out: [string, string][]): void {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const entries = Object.entries(value);
    if (entries.length === 0) out.push([prefix, '{}']);
    for (const [k, v] of entries) flatten(v, prefix ? `${prefix}.${k}` : k, out);
    return;
  }
  out.push([prefix, typeof value === 'string' ? value : JSON.stringify(value)]);
}

/** Fixed-width lines (Courier), so long base64 and JSON wrap at the same column instead of at '/' and '+'. */
function chunk(text: string, size: number): string[] {
  const lines: string[] = [];
  for (let i = 0; i < text.length; i += size) lines.push(text.slice(i, i + size));
  return lines;
}

function describeSignature(profile: EvidenceProfile | null, bundle: Bundle): { algorithm: string; keyId: string; signature: string } {
  const read = profile?.readSignature(bundle) ?? {};
  const str = (v: unknown) => (typeof v === 'string' ? v : v === undefined ? '(missing)' : JSON.stringify(v));
  return { algorithm: str(read.algorithm), keyId: str(read.key_id), signature: str(read.signature) };
}

export async function renderBundlePdf(bundle: Bundle): Promise<Buffer> {
  const profile = detectProfile(bundle);
  const unsigned = profile ? unsignedView(profile, bundle) : bundle;
  const canonical = Buffer.from(signedBytes(unsigned)).toString('utf8');
  const sig = describeSignature(profile, bundle);
  const created = bundle.created_at ?? (typeof bundle.bundle === 'object' && bundle.bundle ? (bundle.bundle as Bundle).created_at : undefined);
  const createdAt = typeof created === 'string' && !Number.isNaN(Date.parse(created)) ? new Date(created) : undefined;
  const bundleId = bundleIdOf(bundle) ?? '(no id)';

  const doc = new PDFDocument({
    size: 'A4',
    margin: MARGIN,
    info: {
      Title: `Evidence bundle ${bundleId}`,
      Subject: profile?.title ?? 'Evidence bundle',
      Creator: 'Lattice',
      Producer: 'Lattice evidence export',
      // Fixed from the bundle so the same bundle gives the same document information.
      ...(createdAt ? { CreationDate: createdAt, ModDate: createdAt } : {}),
    },
  });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  const width = doc.page.width - 2 * MARGIN;

  // Keeps a label with its value, and a heading with its first row, on one page.
  const ensureSpace = (points: number) => {
    if (doc.y + points > doc.page.height - MARGIN) doc.addPage();
  };
  const heading = (text: string) => {
    ensureSpace(60);
    doc.moveDown(0.8).font('Helvetica-Bold').fontSize(13).fillColor('#1a3a5c').text(text, MARGIN).moveDown(0.3);
    doc.fillColor('black');
  };
  const row = (label: string, value: string, mono = true) => {
    ensureSpace(34);
    doc.font('Helvetica-Bold').fontSize(9).text(label, MARGIN, doc.y, { width, continued: false });
    doc.font(mono ? 'Courier' : 'Helvetica').fontSize(9).text(value, MARGIN + 12, doc.y, { width: width - 12 }).moveDown(0.25);
  };

  doc.font('Helvetica-Bold').fontSize(18).text('Lattice evidence bundle', MARGIN);
  doc.font('Helvetica').fontSize(11).fillColor('#444').text(profile?.title ?? 'Unknown kind of bundle', MARGIN).fillColor('black');
  doc.moveDown(0.5);
  row('Bundle id', bundleId);
  row('Kind', profile?.kind ?? 'unknown');

  heading('Bundle fields (signed)');
  const fields: [string, string][] = [];
  flatten(unsigned, '', fields);
  for (const [path, value] of fields) row(path, value);

  heading('Hashes');
  const hashes = fields.filter(([, v]) => v.startsWith('sha3-256:'));
  for (const [path, value] of hashes) row(path, value);
  row('SHA3-256 of the signed bytes (the canonical JSON in the appendix)', sha3Hash(canonical));

  heading('Signature');
  row('Algorithm', `${sig.algorithm} (FIPS 204 ML-DSA, pure mode, empty context)`);
  row('Key id', sig.keyId);
  if (profile) row('Public keys published at', `GET ${profile.keysPath} of the ${profile.service} service`);
  row('Signature fields (not signed)', profile ? profile.signatureFields.join(', ') : '(unknown kind)');
  ensureSpace(60);
  doc.font('Helvetica-Bold').fontSize(9).text('Signature (standard base64)', MARGIN);
  doc.font('Courier').fontSize(6.5).text(chunk(sig.signature, 100).join('\n'), MARGIN + 12, doc.y, { width: width - 12 });

  heading('How to verify this bundle offline');
  const steps = [
    `Take the bundle's JSON (attached to this PDF as ${bundleId}.json, or from the service's JSON or CBOR export).`,
    `Remove its signature fields (${profile ? profile.signatureFields.join(', ') : 'see the kind\'s profile'}).`,
    'Serialise what remains as RFC 8785 canonical JSON (JCS) and take its UTF-8 bytes; they must equal the appendix, and their SHA3-256 the hash above.',
    `Fetch the public keys document (${profile ? `GET ${profile.keysPath}` : '<evidence path>/keys'}) once and keep it; find key "${sig.keyId}". Its public_key is standard base64 of the raw FIPS 204 public key.`,
    `Verify the signature (base64-decoded) over those bytes with ${sig.algorithm} in pure mode with an empty context, e.g. with liboqs, OpenSSL 3.5 or later, or pyca/cryptography.`,
    'Check the timestamps (RFC 3339, not in the future) and recompute each hash whose data you hold.',
    'Or run: lattice evidence verify bundle.json --keys keys.json --json',
  ];
  doc.font('Helvetica').fontSize(9.5);
  steps.forEach((s, i) => doc.text(`${i + 1}. ${s}`, MARGIN, doc.y, { width }).moveDown(0.2));

  doc.addPage();
  heading('Appendix: the signed bytes (RFC 8785 canonical JSON, UTF-8)');
  doc.font('Courier').fontSize(7).text(chunk(canonical, 110).join('\n'), MARGIN, doc.y, { width });

  doc.file(Buffer.from(`${JSON.stringify(bundle, null, 2)}\n`), {
    name: `${bundleId.replace(/[^A-Za-z0-9._-]/g, '_')}.json`,
    type: 'application/json',
    description: 'The evidence bundle as issued',
    ...(createdAt ? { creationDate: createdAt, modifiedDate: createdAt } : {}),
  });
  doc.end();
  return done;
}
