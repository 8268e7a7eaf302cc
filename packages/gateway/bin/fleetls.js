#!/usr/bin/env node
// The fleetls command. A committed shim, so `npm ci` links the bin before `npm run build`
// has written dist/ (npm skips links to files that do not exist yet).
import '../dist/main.js';
