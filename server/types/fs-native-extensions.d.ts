// The part of fs-native-extensions (no types of its own) that dir-lock.ts uses.
declare module 'fs-native-extensions' {
  /** true when the lock was granted, false when another open file holds it; throws on other errors. */
  export function tryLock(fd: number, offset?: number, length?: number, options?: { shared?: boolean }): boolean;
  export function unlock(fd: number, offset?: number, length?: number): void;
}
