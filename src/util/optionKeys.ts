/**
 * The keys of an options interface, for the check that refuses unknown options: listed as an object with every
 * key of `T` set to true, so that the compiler refuses the list when a key is missing or unknown.
 */
export function optionKeys<T>(keys: { readonly [K in keyof Required<T>]: true }): readonly string[] {
  return Object.keys(keys);
}
