export { RobotsCache, productToken, type RobotsRules } from './robots.ts';
