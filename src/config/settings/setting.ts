/** A setting read from the environment only: the deployment must know it before it starts. */
export interface DeploymentSetting {
  env: string;
  /** As the README shows it: a value in backticks, or words such as `unset` or `generated`. */
  default: string;
  description: string;
}

interface KnobBase {
  /** Where the configuration document sets it: `group.name` under `settings`. */
  key: string;
  /**
   * The environment variable that set it before, still read for one release with a warning;
   * absent from knobs added since, which only the document sets.
   */
  env?: string;
  description: string;
}

export interface IntegerKnob extends KnobBase {
  type: 'integer';
  /** A gateway entry of the document may set it for its upstream alone (`settings.<name>`). */
  perGateway?: true;
  default: number;
  min: number;
  max: number;
}

export interface BooleanKnob extends KnobBase {
  type: 'boolean';
  default: boolean;
}

export interface EnumKnob extends KnobBase {
  type: 'enum';
  values: readonly string[];
  default: string;
}

/** A list of tool names (comma-separated in the environment). */
export interface NamesKnob extends KnobBase {
  type: 'names';
  default: readonly string[];
}

export type TuningKnob = IntegerKnob | BooleanKnob | EnumKnob | NamesKnob;

/** A knob's value, by its type. */
export type KnobValue = number | boolean | string | readonly string[];
