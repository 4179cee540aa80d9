using System.Text.Encodings.Web;
using System.Text.Json;
using System.Text.Json.Nodes;
using Salsa.Contracts.Operations;
using Salsa.Gateway.Catalog;

namespace Salsa.Gateway.Workflows;

/// <summary>
/// The JSON Schema (draft 2020-12) of the workflow format, built from the operation catalog and the
/// parser's own keys and patterns, so it cannot drift from what the gateway accepts. The committed
/// <c>workflows/workflow.schema.json</c> is this text (<c>Salsa.Gateway schema</c> prints it; a test
/// compares them), and editors read it through the workflows' <c># yaml-language-server</c> line.
/// It states what a schema can: keys, services and their operations, each operation's inputs,
/// parameters (type, bounds, allowed values, defaults) and files. What needs the whole workflow —
/// inputs and <c>after</c> naming existing steps and outputs of the right type, no cycles — the
/// gateway checks when the workflow loads, and the schema says so in its <c>$comment</c>s.
/// </summary>
public static class WorkflowSchema
{
    /// <summary>Where the generated schema is committed, relative to the repository root.</summary>
    public const string CommittedPath = "workflows/workflow.schema.json";

    // A duration as WorkflowVocabulary.ParseDuration reads it (surrounding spaces trimmed), and positive.
    private const string DurationPattern = @"^\s*(?!0+(\.0+)?\s*(ms|s|m|h)?\s*$)[0-9]+(\.[0-9]+)?\s*(ms|s|m|h)?\s*$";

    // WorkflowChecker.Check takes a whole number below 10^15 in magnitude as an integer.
    private const long IntegerLimit = 1_000_000_000_000_000;

    private static readonly JsonSerializerOptions s_format = new()
    {
        WriteIndented = true,
        NewLine = "\n",
        Encoder = JavaScriptEncoder.UnsafeRelaxedJsonEscaping, // a file people read: "→" rather than "\u2192"
    };

    /// <summary>The schema as committed: indented JSON, LF line ends, a final newline.</summary>
    public static string Generate(OperationCatalog catalog) => Build(catalog).ToJsonString(s_format) + "\n";

    public static JsonObject Build(OperationCatalog catalog)
    {
        ArgumentNullException.ThrowIfNull(catalog);
        return new JsonObject
        {
            ["$schema"] = "https://json-schema.org/draft/2020-12/schema",
            ["title"] = "Salsa.Services workflow",
            ["description"] = "A workflow of the Salsa gateway: steps, each an operation of a service, run as a DAG (docs/workflows.md).",
            ["$comment"] = "Generated from the gateway's OperationCatalog by `dotnet run --project gateway/Salsa.Gateway -- schema`; do not edit "
                + "(a test fails when this file differs from the generator's output). The gateway checks more when a workflow loads: that "
                + "inputs and `after` name steps of this workflow, that an input's step has that output and of the type the input takes, "
                + "that the steps form no cycle, and that parameter overrides (--set, `parameters` of POST /api/runs) name a parameter of a "
                + "step; an override may also supply a required parameter the file leaves out. Values are read as YAML 1.2 (core schema): "
                + "quote a name that YAML would read as a boolean, number or null.",
            ["type"] = "object",
            ["required"] = Strings("name", "steps"),
            ["additionalProperties"] = false,
            ["properties"] = Keys(WorkflowVocabulary.TopKeys, key => key switch
            {
                "name" => new JsonObject
                {
                    ["description"] = "The workflow's name: lower-case letters, digits and dashes, starting with a letter.",
                    ["type"] = "string",
                    ["pattern"] = WorkflowVocabulary.IdPatternText,
                },
                "description" => new JsonObject { ["description"] = "What the workflow does, in a sentence.", ["type"] = "string", ["minLength"] = 1 },
                "steps" => new JsonObject
                {
                    ["description"] = "Step id → step. Steps run as soon as the steps they depend on have succeeded; independent steps run concurrently.",
                    ["$comment"] = "The gateway also checks that the steps form no cycle through their inputs and `after`, and that no two steps keep a file of the same name.",
                    ["type"] = "object",
                    ["minProperties"] = 1,
                    ["propertyNames"] = new JsonObject { ["$ref"] = "#/$defs/stepId" },
                    ["additionalProperties"] = new JsonObject { ["$ref"] = "#/$defs/step" },
                },
                _ => null,
            }),
            ["$defs"] = new JsonObject
            {
                ["stepId"] = new JsonObject
                {
                    ["description"] = "A step id: lower-case letters, digits and dashes, starting with a letter.",
                    ["type"] = "string",
                    ["pattern"] = WorkflowVocabulary.IdPatternText,
                },
                ["duration"] = new JsonObject
                {
                    ["description"] = "A positive duration: 500ms, 30s, 15m, 2h, or a number of seconds.",
                    ["$comment"] = "The gateway also refuses a duration beyond .NET's TimeSpan (about 29,000 years).",
                    ["anyOf"] = new JsonArray(
                        new JsonObject { ["type"] = "string", ["pattern"] = DurationPattern },
                        new JsonObject { ["type"] = "number", ["exclusiveMinimum"] = 0 }),
                },
                ["names"] = new JsonObject
                {
                    ["anyOf"] = new JsonArray(
                        new JsonObject { ["type"] = "string", ["minLength"] = 1 },
                        new JsonObject { ["type"] = "array", ["items"] = new JsonObject { ["type"] = "string", ["minLength"] = 1 } }),
                },
                ["step"] = Step(catalog),
            },
        };
    }

    private static JsonObject Step(OperationCatalog catalog)
    {
        var rules = new JsonArray();
        foreach (var service in catalog.Services)
        {
            rules.Add(new JsonObject
            {
                ["if"] = When(("service", service)),
                ["then"] = new JsonObject
                {
                    ["properties"] = new JsonObject { ["operation"] = new JsonObject { ["enum"] = Strings([.. catalog.Operations(service).Select(o => o.Name)]) } },
                },
            });
        }

        foreach (var spec in catalog.Services.SelectMany(service => catalog.Operations(service)))
        {
            rules.Add(Operation(spec));
        }

        return new JsonObject
        {
            ["description"] = "One operation of a service: its inputs (earlier steps' outputs), parameters, and how it is run.",
            ["type"] = "object",
            ["required"] = Strings("service", "operation"),
            ["additionalProperties"] = false,
            ["properties"] = Keys(WorkflowVocabulary.StepKeys, key => key switch
            {
                "service" => new JsonObject { ["description"] = "The service that performs the step.", ["enum"] = Strings([.. catalog.Services]) },
                "operation" => new JsonObject { ["description"] = "An operation of the service (docs/workflows.md lists them).", ["type"] = "string" },
                "inputs" => new JsonObject
                {
                    ["description"] = "Input name → an earlier step's output, written step.output (e.g. import.dataset). The step waits for that step.",
                    ["type"] = "object",
                    ["additionalProperties"] = new JsonObject
                    {
                        ["$comment"] = "The gateway also checks that the step exists, is not this one, and has this output, of a type the input takes.",
                        ["type"] = "string",
                        ["pattern"] = WorkflowVocabulary.ReferencePatternText,
                    },
                },
                "parameters" => new JsonObject
                {
                    ["description"] = "Parameter name → value; parameters left out take their defaults.",
                    ["type"] = "object",
                },
                "after" => new JsonObject
                {
                    ["description"] = "Steps this one waits for besides those its inputs name: a step id or a list of them.",
                    ["$comment"] = "The gateway also checks that these are other steps of this workflow.",
                    ["anyOf"] = new JsonArray(
                        new JsonObject { ["$ref"] = "#/$defs/stepId" },
                        new JsonObject { ["type"] = "array", ["items"] = new JsonObject { ["$ref"] = "#/$defs/stepId" } }),
                },
                "timeout" => new JsonObject
                {
                    ["description"] = "How long one attempt may take (500ms, 30s, 15m, 2h, or seconds); no limit when absent. A timed-out attempt is retried by `retry`.",
                    ["$ref"] = "#/$defs/duration",
                },
                "retry" => new JsonObject
                {
                    ["description"] = "Attempts of a step that fails for a transient reason (a timeout, an unavailable service), waiting backoff, 2×backoff, 4×backoff… between them.",
                    ["type"] = "object",
                    ["additionalProperties"] = false,
                    ["properties"] = Keys(WorkflowVocabulary.RetryKeys, retryKey => retryKey switch
                    {
                        "attempts" => new JsonObject
                        {
                            ["description"] = "Attempts in all (1 = no retry).",
                            ["type"] = "integer",
                            ["minimum"] = 1,
                            ["maximum"] = 10,
                            ["default"] = 1,
                        },
                        "backoff" => new JsonObject { ["description"] = "The wait before the second attempt; it doubles for each later one.", ["$ref"] = "#/$defs/duration", ["default"] = "1s" },
                        _ => null,
                    }),
                },
                "artifacts" => new JsonObject
                {
                    ["description"] = "Files of the step's service job the run keeps (downloaded into the run; the CLI writes them to out/<run-id>/): a name or a list of them.",
                    ["$ref"] = "#/$defs/names",
                },
                _ => null,
            }),
            ["allOf"] = rules,
        };
    }

    private static JsonObject Operation(OperationSpec spec)
    {
        var then = new JsonObject();
        var required = new JsonArray();
        var inputs = new JsonObject();
        foreach (var input in spec.Inputs)
        {
            inputs[input.Name] = new JsonObject { ["description"] = $"{input.Description} (an output of type {string.Join(" or ", input.Type.Split('|'))})" };
        }

        var requiredInputs = spec.Inputs.Where(i => i.Required).Select(i => i.Name).ToArray();
        var inputsSchema = new JsonObject { ["properties"] = inputs, ["additionalProperties"] = false };
        if (requiredInputs.Length > 0)
        {
            inputsSchema["required"] = Strings(requiredInputs);
            required.Add("inputs");
        }

        var parameters = new JsonObject();
        foreach (var parameter in spec.Parameters)
        {
            parameters[parameter.Name] = Parameter(parameter);
        }

        var requiredParameters = spec.Parameters.Where(p => p.Required).Select(p => p.Name).ToArray();
        var parametersSchema = new JsonObject { ["properties"] = parameters, ["additionalProperties"] = false };
        if (requiredParameters.Length > 0)
        {
            parametersSchema["required"] = Strings(requiredParameters);
            required.Add("parameters");
        }

        var files = Strings([.. spec.Artifacts]);
        var artifacts = spec.Artifacts.Count == 0
            ? new JsonObject { ["$comment"] = "This operation keeps no files.", ["type"] = "array", ["maxItems"] = 0 }
            : new JsonObject
            {
                ["anyOf"] = new JsonArray(
                    new JsonObject { ["enum"] = files },
                    new JsonObject { ["type"] = "array", ["items"] = new JsonObject { ["enum"] = files.DeepClone() } }),
            };

        then["properties"] = new JsonObject { ["inputs"] = inputsSchema, ["parameters"] = parametersSchema, ["artifacts"] = artifacts };
        if (required.Count > 0)
        {
            then["required"] = required;
        }

        return new JsonObject
        {
            ["$comment"] = $"{spec.Key}: {spec.Summary}",
            ["if"] = When(("service", spec.Service), ("operation", spec.Name)),
            ["then"] = then,
        };
    }

    private static JsonObject Parameter(ParameterSpec parameter)
    {
        var schema = new JsonObject { ["description"] = parameter.Description };
        var integer = parameter.Kind == ParameterKind.Integer;
        JsonNode Bound(double value) => integer ? JsonValue.Create((long)value) : JsonValue.Create(value);
        switch (parameter.Kind)
        {
            case ParameterKind.String:
                schema["type"] = "string";
                if (parameter.Allowed is { } allowed)
                {
                    schema["enum"] = Strings([.. allowed]);
                }

                break;
            case ParameterKind.Boolean:
                schema["type"] = "boolean";
                break;
            case ParameterKind.Integer or ParameterKind.Number:
                schema["type"] = integer ? "integer" : "number";
                if (parameter.Minimum is { } min)
                {
                    schema["minimum"] = Bound(min);
                }
                else if (parameter.ExclusiveMinimum is { } above)
                {
                    schema["exclusiveMinimum"] = Bound(above);
                }
                else if (integer)
                {
                    schema["exclusiveMinimum"] = -IntegerLimit;
                }

                if (parameter.Maximum is { } max)
                {
                    schema["maximum"] = Bound(max);
                }
                else if (parameter.ExclusiveMaximum is { } below)
                {
                    schema["exclusiveMaximum"] = Bound(below);
                }
                else if (integer)
                {
                    schema["exclusiveMaximum"] = IntegerLimit;
                }

                break;
            case ParameterKind.StringList:
                schema["type"] = "array";
                schema["items"] = new JsonObject { ["type"] = "string" };
                break;
            case ParameterKind.NumberList:
                schema["type"] = "array";
                schema["items"] = new JsonObject { ["type"] = "number" };
                break;
            default:
                throw new InvalidOperationException($"Parameter '{parameter.Name}' has a kind the schema does not know: {parameter.Kind}.");
        }

        if (parameter.Default is { } value)
        {
            schema["default"] = value.DeepClone();
        }

        return schema;
    }

    /// <summary>An <c>if</c> that holds when each key is present with its value.</summary>
    private static JsonObject When(params (string Key, string Value)[] conditions) => new()
    {
        ["properties"] = new JsonObject(conditions.Select(c => KeyValuePair.Create(c.Key, (JsonNode?)new JsonObject { ["const"] = c.Value }))),
        ["required"] = Strings([.. conditions.Select(c => c.Key)]),
    };

    /// <summary>The schema of each key the parser accepts; a key the schema does not describe is a generator error, not a silent gap.</summary>
    private static JsonObject Keys(IEnumerable<string> keys, Func<string, JsonObject?> schema) =>
        new(keys.Select(key => KeyValuePair.Create(key, (JsonNode?)(schema(key) ?? throw new InvalidOperationException($"The workflow schema does not describe the key '{key}' the parser accepts.")))));

    private static JsonArray Strings(params string[] values) => new([.. values.Select(v => (JsonNode)v)]);
}
