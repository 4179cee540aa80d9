namespace Salsa.Ccr;

/// <summary>A result or the exception that prevented it.</summary>
public sealed class SuccessFailurePort<T> : PortSet<T, Exception>;
