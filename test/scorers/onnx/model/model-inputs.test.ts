// Every file the ONNX scorer may read is an input no output may overwrite: external data under
// whatever name the graph gives it, read without ever blocking on a FIFO named like a model.
import { execFileSync } from 'node:child_process'
import { cpSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { loadOnnxProto } from '../../../../src/scorers/onnx/model/graph-io.ts'
import { externalize } from '../../../../src/scorers/onnx/model/external-data.ts'
import { modelInputFiles } from '../../../../src/scorers/onnx/model/model-dir.ts'
import { ROOT } from '../../../helpers/run.ts'
import { useTempDirs } from '../../../helpers/temp.ts'

const temp = useTempDirs('sceptic-inputs-')

describe('modelInputFiles', () => {
  it('lists external data the graph names (weights.bin), not only files named like model.onnx_data', () => {
    const model = temp()
    cpSync(join(ROOT, 'examples/models/tiny'), model, { recursive: true })
    const onnx = loadOnnxProto()
    const proto = onnx.ModelProto.decode(readFileSync(join(model, 'model.onnx')))
    const data = externalize(proto.graph!.initializer!.slice(0, 2), onnx.TensorProto.DataLocation.EXTERNAL, { location: 'weights.bin', minBytes: 16, align: 64 })
    writeFileSync(join(model, 'model.onnx'), onnx.ModelProto.encode(proto).finish())
    writeFileSync(join(model, 'weights.bin'), data)
    expect(modelInputFiles(model)).toContain(join(model, 'weights.bin'))
  })

  it('a FIFO named model.onnx is listed, never opened (opening it would block)', () => {
    const model = temp()
    execFileSync('mkfifo', [join(model, 'model.onnx')])
    expect(modelInputFiles(model)).toContain(join(model, 'model.onnx'))
  })
})
