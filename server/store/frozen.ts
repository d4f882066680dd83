/**
 * Freezes a record and everything in it, once: records handed out by a
 * store are shared, so no caller may change one under another.
 */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    // Most fields are text or numbers: descend only into objects, not call once per field.
    for (const field of Object.values(value)) if (field !== null && typeof field === 'object') deepFreeze(field);
  }
  return value;
}
