using System.CommandLine;
using Salsa.Gateway.Catalog;
using Salsa.Gateway.Workflows;

namespace Salsa.Gateway.Cli;

/// <summary>
/// What the workflow format is, printed from the operation catalog rather than kept by hand:
/// <c>schema</c> prints the JSON Schema committed as <c>workflows/workflow.schema.json</c>;
/// <c>operations</c> lists the operations a step can name, and <c>operations --markdown</c> prints
/// the reference section of <c>docs/workflows.md</c>. Neither starts a service.
/// </summary>
public static class SchemaCommand
{
    public static Command CreateSchema()
    {
        var command = new Command("schema", $"Prints the workflow format's JSON Schema (redirect it to {WorkflowSchema.CommittedPath}).");
        command.SetAction(parse => Write(parse, WorkflowSchema.Generate(new OperationCatalog())));
        return command;
    }

    public static Command CreateOperations()
    {
        var markdown = new Option<bool>("--markdown") { Description = "The reference section of docs/workflows.md instead of the summary." };
        var command = new Command("operations", "Lists the operations a workflow step can name, with their inputs, parameters and outputs.") { markdown };
        command.SetAction(parse => Write(parse, parse.GetValue(markdown) ? OperationReference.Markdown(new OperationCatalog()) : OperationReference.Summary(new OperationCatalog())));
        return command;
    }

    private static int Write(ParseResult parse, string text)
    {
        parse.InvocationConfiguration.Output.Write(text);
        return 0;
    }
}
