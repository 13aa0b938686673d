/**
 * Approval classes as a user tool's code needs them. The classes are not a total
 * order: the permission matrix (tools/permissions.ts) treats `write` more strictly in
 * read-only mode and `network` more strictly in auto-edit mode, so neither covers the
 * other. `exec` is at least as strict as both in every mode, so it covers everything,
 * and code that both writes files and reaches the network needs `exec`.
 */
import type { ApprovalClass } from '../types.js';

export const APPROVAL_CLASSES: readonly ApprovalClass[] = ['none', 'write', 'network', 'exec'];

/** Whether a tool declared `declared` may do what `needed` allows. */
export function covers(declared: ApprovalClass, needed: ApprovalClass): boolean {
  return declared === needed || declared === 'exec' || needed === 'none';
}

/** The least class that covers both. */
export function join(a: ApprovalClass, b: ApprovalClass): ApprovalClass {
  if (covers(a, b)) return a;
  if (covers(b, a)) return b;
  return 'exec';
}

export function isApprovalClass(value: unknown): value is ApprovalClass {
  return typeof value === 'string' && (APPROVAL_CLASSES as readonly string[]).includes(value);
}
