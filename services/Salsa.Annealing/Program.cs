using Salsa.Annealing;
using Salsa.Hosting.Host;

return await SalsaServiceHost.RunAsync<AnnealingService>(args);
