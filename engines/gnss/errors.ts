// The one error type of the GNSS engine: bad or unusable input, with a stable code and a clear message.

export type GnssErrorCode =
  | 'RINEX_HEADER'
  | 'RINEX_TRUNCATED'
  | 'RINEX_CORRUPT'
  | 'RINEX_UNSUPPORTED'
  | 'NMEA_CHECKSUM'
  | 'NMEA_CORRUPT'
  | 'UBX_CHECKSUM'
  | 'UBX_CORRUPT'
  | 'GPSD_PROTOCOL'
  | 'INVALID_ARGUMENT';

/** Raised for input the engine cannot use; never for a missing fix, which is a result (`fix: false`). */
export class GnssInputError extends Error {
  readonly code: GnssErrorCode;
  readonly line?: number;

  constructor(code: GnssErrorCode, message: string, line?: number) {
    super(line === undefined ? message : `${message} (line ${line})`);
    this.name = 'GnssInputError';
    this.code = code;
    this.line = line;
  }
}
