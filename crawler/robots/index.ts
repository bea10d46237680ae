export { RobotsCache, productToken, type AllowedRules, type RobotsRules, type RobotsSource } from './robots.ts';
