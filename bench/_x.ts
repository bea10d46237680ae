import { loadConfig } from '../config/load.ts';
console.log(loadConfig({}).recrawl);
console.log(loadConfig({overrides:{recrawl:{minInterval:'90s', maxInterval:'2.5h'}}}).recrawl);
for (const r of [{minInterval:'3d', maxInterval:'1d'}, {minInterval: 5}, {maxInterval:'5w'}, {minInterval:'0s'}, {maxInterval: '400d'}]) {
try { loadConfig({overrides:{recrawl:r}}) } catch(e) { console.log((e as Error).message) } }
