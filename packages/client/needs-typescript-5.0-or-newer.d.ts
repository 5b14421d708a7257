// @channel-graph/client needs TypeScript 5.0 or newer; this compiler is older. Update it: npm install --save-dev typescript@5
// (package.json maps every entry here for an older TypeScript, so that this is the one error it reports.)
export {};
"@channel-graph/client needs TypeScript 5.0 or newer
