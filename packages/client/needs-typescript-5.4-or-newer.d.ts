// @channel-graph/client needs TypeScript 5.4 or newer; this compiler is older. Update it: npm install --save-dev typescript@latest
// (package.json maps every entry here for an older TypeScript, so that this is the one error it reports.)
export {};
"@channel-graph/client needs TypeScript 5.4 or newer
