import { createHash } from 'node:crypto';

/** sha256 of a text's UTF-8 bytes, in hex: what a user tool's manifest records of each file. */
export const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');
