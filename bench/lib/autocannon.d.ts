// autocannon ships no types; bench/lib/load.ts, its one user, types the slice it calls.
declare module 'autocannon' {
  const autocannon: unknown;
  export default autocannon;
}
