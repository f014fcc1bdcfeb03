export { grade, exitCode, withAuthorizationServers, allChecks, gradedAuthorizationServers, type GradeInput, type Baseline } from './grade.js';
export { loadBaseline, applyBaseline, isFailing, updatedBaseline, formatBaseline, type BaselineOutcome, type BaselineEntry } from './baseline.js';
export { headline, levelCounts, LEVELS } from './headline.js';
export { requirementVerdicts, worstStatus, statusRank, gradedLevel } from './verdicts.js';
