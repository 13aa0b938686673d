/** Per-model token-estimate calibration carried between runs in `<home>/calibration.json`. */
import { readFileSync, writeFileSync } from 'node:fs';
import { TokenCalibrator } from '../context/tokens.js';

/** The saved calibration; a missing or damaged file starts afresh. */
export function loadCalibration(file: string): TokenCalibrator {
  try {
    return TokenCalibrator.from(JSON.parse(readFileSync(file, 'utf8')));
  } catch {
    return new TokenCalibrator();
  }
}

export function saveCalibration(file: string, calibrator: TokenCalibrator): void {
  try {
    writeFileSync(file, `${JSON.stringify(calibrator.toJSON())}\n`, { mode: 0o600 });
  } catch {
    // best effort: the next run calibrates again
  }
}
