using Salsa.Gateway.Operations;
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
    public static int Schema(IReadOnlyList<string> args, TextWriter output, TextWriter error)
    {
        ArgumentNullException.ThrowIfNull(args);
        ArgumentNullException.ThrowIfNull(output);
        ArgumentNullException.ThrowIfNull(error);
        if (args.Count > 0)
        {
            error.WriteLine($"usage: Salsa.Gateway schema   (prints the JSON Schema; redirect it to {WorkflowSchema.CommittedPath})");
            return 2;
        }

        output.Write(WorkflowSchema.Generate(new OperationCatalog()));
        return 0;
    }

    public static int Operations(IReadOnlyList<string> args, TextWriter output, TextWriter error)
    {
        ArgumentNullException.ThrowIfNull(args);
        ArgumentNullException.ThrowIfNull(output);
        ArgumentNullException.ThrowIfNull(error);
        switch (args)
        {
            case []:
                output.Write(OperationReference.Summary(new OperationCatalog()));
                return 0;
            case ["--markdown"]:
                output.Write(OperationReference.Markdown(new OperationCatalog()));
                return 0;
            default:
                error.WriteLine("usage: Salsa.Gateway operations [--markdown]");
                return 2;
        }
    }
}
