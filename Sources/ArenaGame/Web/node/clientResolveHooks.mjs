// The module-resolution hook registered by resolveClient.mjs (it runs on Node's hooks thread):
// `@tickwire/client` and `@tickwire/client/…` resolve as if imported from inside
// Clients/javascript, where Node resolves a package's own name through its `exports`.
const clientPackage = new URL('../../../../Clients/javascript/package.json', import.meta.url).href;

/**
 * @param {string} specifier
 * @param {{ parentURL?: string, conditions: string[], importAttributes?: object }} context
 * @param {(specifier: string, context?: object) => Promise<{ url: string }>} nextResolve
 */
export async function resolve(specifier, context, nextResolve) {
  if (specifier === '@tickwire/client' || specifier.startsWith('@tickwire/client/')) {
    return nextResolve(specifier, { ...context, parentURL: clientPackage });
  }
  return nextResolve(specifier, context);
}
