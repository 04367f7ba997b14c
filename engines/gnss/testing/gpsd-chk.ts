// Reads gpsd's expected regression output (.chk) into its TPV positions and SKY satellite counts.

export interface ChkTpv {
  time?: string;
  ecef?: [number, number, number];
  mode: number;
  lat?: number;
  lon?: number;
  altHAE?: number;
}

export interface ChkSky {
  time?: string;
  used: number;
  visible: number;
  /** Distinct satellites marked used, GPS and GLONASS only (gnssid 0 and 6). */
  usedGpsGlonass: number;
}

export function parseChk(text: string): { tpv: ChkTpv[]; sky: ChkSky[] } {
  const tpv: ChkTpv[] = [];
  const sky: ChkSky[] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith('{"class":"TPV"') && !line.startsWith('{"class":"SKY"')) continue;
    const o = JSON.parse(line) as Record<string, unknown>;
    if (o.class === 'TPV') {
      const ecef = typeof o.ecefx === 'number' ? ([o.ecefx, o.ecefy, o.ecefz] as [number, number, number]) : undefined;
      tpv.push({ time: o.time as string | undefined, ecef, mode: o.mode as number, lat: o.lat as number | undefined, lon: o.lon as number | undefined, altHAE: o.altHAE as number | undefined });
    } else if (Array.isArray(o.satellites)) {
      const sats = o.satellites as { used?: boolean; gnssid?: number; svid?: number; PRN: number }[];
      const gg = new Set(sats.filter((s) => s.used && (s.gnssid === 0 || s.gnssid === 6)).map((s) => `${s.gnssid}:${s.svid}`));
      sky.push({ time: o.time as string | undefined, used: sats.filter((s) => s.used).length, visible: sats.length, usedGpsGlonass: gg.size });
    }
  }
  return { tpv, sky };
}
