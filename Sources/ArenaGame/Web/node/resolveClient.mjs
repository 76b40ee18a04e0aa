// Lets Node load the arena's modules, which import the client by its package name
// (`@tickwire/client`), as a browser does through the import map in index.html: import this
// module first (`import '…/Web/node/resolveClient.mjs'`, or `node --import`), then the arena's
// modules with a dynamic `import()`. The name resolves through Clients/javascript/package.json's
// `exports`, exactly as it would from an installed copy of the package.
import { register } from 'node:module';

register('./clientResolveHooks.mjs', import.meta.url);
